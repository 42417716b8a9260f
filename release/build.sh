#!/usr/bin/env bash
# Builds a release: grimoire for each platform (CGO_ENABLED=0, -trimpath,
# symbols stripped), one Claude Desktop bundle (.mcpb) per platform whose
# manifest names only that platform, and in its display name the system and
# the processor (a manifest can choose a binary by system, not by processor,
# so the two macOS bundles are told apart by name), each manifest and each
# packed bundle validated by the official mcpb CLI, and SHA256SUMS over
# them all.
#
#   VERSION=v0.2.0 release/build.sh     # stamps the binaries; the bundles get 0.2.0
#   release/build.sh                    # the version in mcpb/manifest.json; the
#                                       # binaries tell their commit from Go's build record
#   TARGETS="linux/amd64 windows/amd64" release/build.sh   # some platforms only
#
# OUT is where it all goes (default dist/, emptied first). MCPB names an
# mcpb CLI to use; by default @anthropic-ai/mcpb is installed with npm into a
# temporary folder. Needs Go, Node.js and npm.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=${TARGETS:-darwin/arm64 darwin/amd64 linux/amd64 linux/arm64 windows/amd64}
out=${OUT:-dist}
mcpb_version=2.1.2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mcpb=${MCPB:-}
if [ -z "$mcpb" ]; then
	(cd "$work" && npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/mcpb@$mcpb_version" >/dev/null)
	mcpb="$work/node_modules/.bin/mcpb"
fi

# The bundle's version is the release's without its v; a build that is no
# release keeps the manifest's.
version=${VERSION:-}
bundle_version=${version#v}
if [ -z "$bundle_version" ]; then
	bundle_version=$(node -p 'require("./mcpb/manifest.json").version')
fi
ldflags="-s -w"
if [ -n "$version" ]; then
	ldflags="$ldflags -X main.version=$version"
fi

sha256() {
	if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

rm -rf "$out"
mkdir -p "$out"
for target in $targets; do
	goos=${target%/*}
	goarch=${target#*/}
	exe=grimoire
	platform=$goos
	case $goos in
	windows) exe=grimoire.exe platform=win32 system=Windows ;;
	darwin) system=macOS ;;
	linux) system=Linux ;;
	*) echo "release: no Claude Desktop platform for $goos" >&2; exit 2 ;;
	esac
	case $target in
	darwin/arm64) cpu="Apple silicon" ;;
	darwin/amd64) cpu=Intel ;;
	*/amd64) cpu=x86-64 ;;
	*/arm64) cpu=Arm64 ;;
	*) echo "release: no name for the processor of $target" >&2; exit 2 ;;
	esac
	name=grimoire-$bundle_version-$goos-$goarch

	start=$SECONDS
	stage=$work/$name
	mkdir -p "$stage/server"
	# -buildvcs=auto: Go records the commit when it builds in a clone,
	# whatever GOFLAGS says, and --version prints it.
	GOOS=$goos GOARCH=$goarch CGO_ENABLED=0 go build -trimpath -buildvcs=auto -ldflags "$ldflags" \
		-o "$stage/server/$exe" ./cmd/grimoire
	built=$((SECONDS - start))
	cp "$stage/server/$exe" "$out/$name${exe#grimoire}"

	# This platform's manifest: its binary, and no other platform.
	node - "$stage/manifest.json" "$platform" "server/$exe" "$bundle_version" "$system, $cpu" <<'EOF'
const fs = require("fs");
const [file, platform, entry, version, where] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync("mcpb/manifest.json", "utf8"));
m.version = version;
m.display_name = `${m.display_name} (${where})`;
m.server.entry_point = entry;
m.server.mcp_config.command = "${__dirname}/" + entry;
delete m.server.mcp_config.platform_overrides;
m.compatibility = { ...m.compatibility, platforms: [platform] };
fs.writeFileSync(file, JSON.stringify(m, null, 2) + "\n");
EOF
	"$mcpb" validate "$stage/manifest.json" >/dev/null
	"$mcpb" pack "$stage" "$out/$name.mcpb" >/dev/null

	# The bundle as Claude Desktop reads it: unpacked, its manifest valid and
	# naming this platform alone, its binary the one built.
	check=$work/check-$name
	"$mcpb" unpack "$out/$name.mcpb" "$check" >/dev/null
	"$mcpb" validate "$check/manifest.json" >/dev/null
	node - "$check/manifest.json" "$platform" <<'EOF'
const fs = require("fs");
const [file, platform] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync(file, "utf8"));
const p = m.compatibility.platforms;
if (p.length !== 1 || p[0] !== platform) throw new Error(`${file}: platforms ${p}, want ${platform}`);
EOF
	cmp "$check/server/$exe" "$stage/server/$exe"
	if [ "$goos" = "$(go env GOHOSTOS)" ] && [ "$goarch" = "$(go env GOHOSTARCH)" ]; then
		[ -x "$check/server/$exe" ] || { echo "release: $name.mcpb: the binary lost its execute bit" >&2; exit 1; }
		echo "  $("$check/server/$exe" --version)"
	fi
	size=$(wc -c <"$stage/server/$exe")
	echo "ok $target: $name.mcpb, binary $((size / 1000000)) MB, built in ${built}s, packed and validated in $((SECONDS - start - built))s"
done

# No two bundles alike: Claude Desktop shows the display name, and one that
# named no processor would let a Mac user install the other one's binary.
node - "$work"/check-*/manifest.json <<'EOF'
const fs = require("fs");
const seen = new Map();
for (const file of process.argv.slice(2)) {
  const m = fs.readFileSync(file, "utf8");
  const name = JSON.parse(m).display_name;
  if (seen.has(m) || seen.has(name)) throw new Error(`${file}: the same manifest or display name (${name}) as ${seen.get(m) || seen.get(name)}`);
  seen.set(m, file).set(name, file);
}
EOF

(cd "$out" && sha256 grimoire-* >SHA256SUMS)
echo "release: $(ls "$out" | wc -l) files in $out, SHA256SUMS over them"
