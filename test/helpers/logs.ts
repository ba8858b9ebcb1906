/** A broker logger that keeps every log line (as JSON of its arguments) in memory: for "never logged" checks. */
import { BrokerOptions, Loggers } from "moleculer";

export function capturingLogger(lines: string[]): BrokerOptions {
  class Capture extends Loggers.Base {
    getLogHandler() {
      return (_type: string, args: unknown[]) => void lines.push(JSON.stringify(args));
    }
  }
  return { logger: new Capture({ level: "debug" }) };
}
