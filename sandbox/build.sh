#!/usr/bin/env bash
# `npm run build:sandbox`: the sandbox as its own npm package, n8n-nodes-clearinghouse-sandbox, in
# .sandbox-package/ (git-ignored): sandbox/*.ts compiled to JavaScript (no ts-node at run time), the
# console's static files, sandbox/package.json with the root package's version, its README and the
# licence. `npm pack .sandbox-package` makes the tarball; publish.yml publishes it with provenance.
#   sandbox/build.sh [OUT]   (default .sandbox-package; the package test builds into a temp folder)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
out="${1:-.sandbox-package}"
rm -rf "$out"
npx tsc -p sandbox/tsconfig.build.json --outDir "$out/dist"
cp -r sandbox/console "$out/dist/console"
cp sandbox/README.md LICENSE.md "$out/"
node -e '
const fs = require("node:fs");
const path = require("node:path");
const manifest = JSON.parse(fs.readFileSync("sandbox/package.json", "utf8"));
delete manifest["//"];
const version = JSON.parse(fs.readFileSync("package.json", "utf8")).version;
fs.writeFileSync(path.join(process.argv[1], "package.json"), JSON.stringify({ name: manifest.name, version, ...manifest }, null, 2) + "\n");
console.error(`[build:sandbox] ${manifest.name}@${version} in ${process.argv[1]}`);
' "$out"
chmod +x "$out/dist/bin.js"
