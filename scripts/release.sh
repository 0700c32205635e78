#!/usr/bin/env bash
# release.sh VERSION: makes VERSION (vX.Y.Z) of the current commit. The
# CHANGELOG.md section "## Unreleased (VERSION)" becomes "## VERSION (date)"
# naming the commit, which is tagged VERSION; a fresh Unreleased section goes
# on top and the changelog is committed. The release is the tagged commit,
# the one before the changelog's (docs/deploy.md, "Releases").
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: release.sh vX.Y.Z}
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "release: $version is not vX.Y.Z" >&2; exit 2; }
if [ -n "$(git status --porcelain)" ]; then
  echo "release: the tree has uncommitted changes: a release is a commit" >&2
  exit 1
fi
grep -qx "## Unreleased ($version)" CHANGELOG.md || { echo "release: CHANGELOG.md has no \"## Unreleased ($version)\" section" >&2; exit 1; }
commit=$(git rev-parse HEAD)
git tag -a "$version" -m "HaulGraph $version" "$commit"
awk -v v="$version" -v c="$commit" -v d="$(date -u +%Y-%m-%d)" '
  $0 == "## Unreleased (" v ")" { print "## Unreleased\n\n## " v " (" d ")\n\nCommit: " c; next }
  { print }' CHANGELOG.md > CHANGELOG.md.tmp
mv CHANGELOG.md.tmp CHANGELOG.md
git commit -q -m "CHANGELOG: $version is ${commit:0:12}" CHANGELOG.md
echo "release: $version is $commit (tag $version); build it with: git checkout $version && make image VERSION=$version"
