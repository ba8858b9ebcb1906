// Validates Kubernetes objects (a JSON array on stdin) with kubernetes-models, whose validators are
// compiled with ajv from the Kubernetes OpenAPI schemas (bundled: no network). ESM-only, hence its own
// process. Prints a JSON array of "Kind/name: error" strings.
let input = "";
for await (const chunk of process.stdin) input += chunk;
const errors = [];
for (const obj of JSON.parse(input)) {
  const where = `${obj.kind}/${obj.metadata?.name}`;
  let Model;
  try {
    Model = (await import(`kubernetes-models/${obj.apiVersion}/${obj.kind}`))[obj.kind];
  } catch {
    errors.push(`${where}: no schema for ${obj.apiVersion} ${obj.kind}`);
    continue;
  }
  try {
    new Model(obj).validate();
  } catch (err) {
    errors.push(`${where}: ${err.message}`);
  }
}
process.stdout.write(JSON.stringify(errors));
