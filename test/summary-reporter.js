// Prints the one closing line CI reads ("N passed, N failed") and keeps it in a file for .ci/run.
const fs = require("fs");
const path = require("path");
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${results.numPassedTests} passed, ${failed} failed` + (results.numPendingTests ? `, ${results.numPendingTests} skipped` : "");
    fs.writeFileSync(path.join(__dirname, "..", ".test-summary"), line + "\n");
    process.stdout.write("\n" + line + "\n");
  }
}
module.exports = SummaryReporter;
