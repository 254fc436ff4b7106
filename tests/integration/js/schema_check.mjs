// Checks orrery's JSON documents against their committed JSON Schemas
// (src/views/schemas/, draft 2020-12) with Ajv, a validator nobody on this
// project wrote. Usage: node schema_check.mjs SCHEMA_DIR DOCUMENTS_FILE,
// where DOCUMENTS_FILE holds {"KIND": [document, …], …} and KIND names
// SCHEMA_DIR/KIND.schema.json. Prints one line per document that does not
// fit, naming the kind, its index and Ajv's errors, and one line per schema
// no document was checked against; exits 1 if it printed any, else 0.
import Ajv2020 from "ajv/dist/2020.js";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const [schemaDir, documentsFile] = process.argv.slice(2);
const ajv = new Ajv2020({ strict: true, allErrors: true });
const documents = JSON.parse(readFileSync(documentsFile, "utf8"));
const kinds = readdirSync(schemaDir)
  .filter((name) => name.endsWith(".schema.json"))
  .map((name) => name.slice(0, -".schema.json".length));
let failures = 0;
for (const kind of kinds) {
  const validate = ajv.compile(JSON.parse(readFileSync(join(schemaDir, `${kind}.schema.json`), "utf8")));
  const list = documents[kind] ?? [];
  if (list.length === 0) {
    console.log(`${kind}: no document was checked against its schema`);
    failures++;
  }
  list.forEach((document, index) => {
    if (!validate(document)) {
      console.log(`${kind}[${index}]: ${ajv.errorsText(validate.errors)}`);
      failures++;
    }
  });
}
for (const kind of Object.keys(documents)) {
  if (!kinds.includes(kind)) {
    console.log(`${kind}: no schema (add ${kind}.schema.json)`);
    failures++;
  }
}
process.exit(failures === 0 ? 0 : 1);
