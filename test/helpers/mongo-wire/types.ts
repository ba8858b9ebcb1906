/** The public types of the MongoDB wire-protocol test double (re-exported by test/helpers/mongo-wire.ts). */

export type Doc = Record<string, any>;

export interface IndexInfo {
  key: Record<string, number>;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: Doc;
}

export interface QueryLogEntry {
  db: string;
  coll: string;
  op: "find" | "count" | "aggregate" | "update" | "delete" | "findAndModify" | "distinct";
  filter: Doc;
  sort?: Doc;
  /** aggregate only: the whole pipeline (`filter` is its leading $match). */
  pipeline?: Doc[];
}

export interface MongoWireOptions {
  /** Delay every answer by this many milliseconds (answers are always written after a setImmediate). */
  delayMs?: number;
  /** Port to listen on (default: a free one). */
  port?: number;
}

export interface MongoWire {
  port: number;
  uri(db?: string): string;
  close(): Promise<void>;
  databases(): string[];
  collections(db: string): string[];
  indexes(db: string, coll: string): IndexInfo[];
  docs(db: string, coll: string): any[];
  connections(): number;
  openConnections(): number;
  queries(): QueryLogEntry[];
  clearQueries(): void;
}
