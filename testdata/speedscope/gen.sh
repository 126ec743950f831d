#!/bin/sh
# Writes testdata/speedscope/node-work.speedscope.json and go-cpu.speedscope.json
# with speedscope's own importers and exporter (github.com/jlfwong/speedscope,
# src/import and src/lib/file-format.ts), bundled for Node by esbuild.
# Usage: gen.sh SPEEDSCOPE_SOURCE_DIR (a checkout of jlfwong/speedscope).
set -eu
src=$1
here=$(cd "$(dirname "$0")" && pwd)
cp "$here/export.ts" "$src/export.ts"
cd "$src"
npm install --no-save --silent
node_modules/.bin/esbuild export.ts --bundle --platform=node --outfile=export.js --log-level=error --loader:.wasm=empty
node export.js "$here/../cpuprofile/node-work.cpuprofile" "$here/node-work.speedscope.json"
node export.js "$here/../folded/go-cpu.folded" "$here/go-cpu.speedscope.json"
