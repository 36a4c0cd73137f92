#!/usr/bin/env bash
# Regenerates the FlatBuffers accessors from entity.fbs (needs flatc: Debian package
# flatbuffers-compiler). The output is committed; run this only after changing the schema.
# The sed lines make the output valid for this project: ESM imports need the .js extension,
# and the engine keeps `any` out of its types.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$here/fbs"
flatc --ts -o "$here/fbs" "$here/entity.fbs"
find "$here/fbs" -name '*.ts' -print0 | xargs -0 sed -i -E \
  -e "s#from '(\.\.?/[^']+)'#from '\1.js'#" \
  -e 's#optionalEncoding\?:any#optionalEncoding?:flatbuffers.Encoding#g'
