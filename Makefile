# The Makefile forwards to the npm scripts (package.json), which are the interface.
# Two commands on a fresh clone:  make run   and   make test

NAMES ?= "Ayman al-Zawahiri" "Владимир Путин" "Banco Nacional de Cuba" "Jane Q. Example"

.PHONY: install build index run screen test eval bench-engine bench-http bench-batch bench-monitoring clean

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

install: node_modules/.package-lock.json

build: install
	npm run build

# Builds the index from the shipped snapshot (data/) when none is published yet, and rebuilds one
# an older engine built (its names normalise differently today).
index: build
	@node -e "Promise.all([import('./dist/index-builder/ensure-index.js'), import('./dist/index-builder/locations.js')]).then(([m, l]) => m.ensureIndex(l.dataDir(), (s) => process.stderr.write(s + '\\n'), 'rebuild'))"

# The service: the local OpenID provider (AML_IDP_PORT, 8081) and the API (AML_PORT, 8080). The
# index is built from the shipped snapshot first when none is published.
run: build
	node dist/server/dev.js

# Screens a few names from the command line (override: make screen NAMES='"First Name" "Other"').
screen: index
	@for name in $(NAMES); do echo "== $$name"; node bin/aml.js screen "$$name" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);console.log(JSON.stringify({decision:r.decision,riskScore:r.riskScore,riskBand:r.riskBand,classification:r.classification,sourceLists:r.sourceLists,matches:r.matches.slice(0,3).map(m=>({entityId:m.entityId,name:m.name,score:m.score}))},null,1))})'; done

test: install
	npm test

eval: install
	npm run eval

bench-engine: install
	npm run bench:engine

bench-http: install
	npm run bench:http

bench-batch: install
	npm run bench:batch

bench-monitoring: install
	npm run bench:monitoring

clean:
	rm -rf dist
