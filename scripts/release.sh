#!/usr/bin/env bash
# `npm run release -- <version> [--dry-run]`. Two halves of one release:
#  - On your machine, on main (this script), in this order, stopping at the first that fails:
#      1. CHANGELOG.md has the dated section `## [<version>] - YYYY-MM-DD` (scripts/release-changelog.sh;
#         seconds, before anything slow);
#      2. no uncommitted change to a tracked file (it refuses; it never resets or discards anything),
#         on branch main, with an upstream it is not behind, the tag <version> free here and there, and
#         <version> the version in package.json (the first release: 0.1.0 as committed) or above it;
#      3. the checks: lint, build, `npm run test:unit`;
#      4. the version: package.json and package-lock.json bumped with `npm version` and committed as
#         "Release <version>" (no commit when package.json already says <version>: the first release
#         tags the commit as it is), an annotated tag <version> (no "v"), and one atomic push of main
#         and the tag to the upstream.
#    --dry-run runs 1 to 3 and says what 4 would do, writing and pushing nothing.
#    It never writes CHANGELOG.md and never publishes.
#  - In GitHub Actions (publish.yml, on that tag): `n8n-node release`, which lints, builds and
#    `npm publish`es with provenance.
# RELEASE_CHECKS replaces the checks' command (the release rehearsal, test/repo/releaseRehearsal.test.ts,
# runs in a repository without node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${GITHUB_ACTIONS:-}" ]; then
  source scripts/deps.sh
  exec n8n-node release
fi

say() { echo "release: $*" >&2; }
stop() {
  say "$*"
  exit 1
}

version=""
dry_run=0
for arg in "$@"; do
  case "$arg" in
    --dry-run | -d) dry_run=1 ;;
    -*) stop "unknown flag $arg (usage: npm run release -- <version> [--dry-run])" ;;
    *) [ -z "$version" ] || stop "one version only, not '$version' and '$arg'"; version="$arg" ;;
  esac
done
[ -n "$version" ] || stop "which version? npm run release -- <version> [--dry-run] (package.json says $(node -p 'require("./package.json").version'))"
[[ "$version" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]] || stop "'$version' is not a version such as 0.2.0 (no \"v\")"

# 1. The CHANGELOG section, first: it is what a release most often lacks.
bash scripts/release-changelog.sh "$version"

# 2. The repository.
dirty="$(git status --porcelain --untracked-files=no)"
[ -z "$dirty" ] || stop "uncommitted changes (left as they are; commit or stash them, then release):
$dirty"
branch="$(git symbolic-ref --quiet --short HEAD || true)"
[ "$branch" = main ] || stop "releases are made from main, not '${branch:-a detached HEAD}'"
upstream="$(git rev-parse --abbrev-ref --symbolic-full-name '@{u}' 2>/dev/null)" || stop "main has no upstream (git push -u origin main)"
remote="${upstream%%/*}"
git fetch --quiet "$remote" || stop "could not fetch $remote"
git merge-base --is-ancestor "$upstream" HEAD || stop "main is behind $upstream: pull first"
if git rev-parse --quiet --verify "refs/tags/$version" >/dev/null || [ -n "$(git ls-remote --tags "$remote" "refs/tags/$version")" ]; then
  stop "the tag $version exists already (a version is released once)"
fi
current="$(node -p 'require("./package.json").version')"
order="$(node -e '
  // -1, 0 or 1: semantic version precedence of argv[1] against argv[2].
  const parse = (v) => { const [core, pre] = v.split(/-(.*)/s); return { core: core.split(".").map(Number), pre: pre ? pre.split(".") : [] }; };
  const id = (x, y) => { const nx = /^\d+$/.test(x), ny = /^\d+$/.test(y); return nx && ny ? Math.sign(x - y) : nx ? -1 : ny ? 1 : x < y ? -1 : x > y ? 1 : 0; };
  const [a, b] = [parse(process.argv[1]), parse(process.argv[2])];
  let r = 0;
  for (let i = 0; i < 3 && !r; i++) r = Math.sign(a.core[i] - b.core[i]);
  if (!r && (a.pre.length || b.pre.length)) {
    if (!a.pre.length || !b.pre.length) r = a.pre.length ? -1 : 1;
    for (let i = 0; !r && i < Math.max(a.pre.length, b.pre.length); i++) r = i >= a.pre.length ? -1 : i >= b.pre.length ? 1 : id(a.pre[i], b.pre[i]);
  }
  console.log(r);
' "$version" "$current")"
[ "$order" != -1 ] || stop "$version is below package.json's $current"
if [ "$order" = 0 ]; then
  plan="tag the last commit as it is ($(git log -1 --format='%h %s')): package.json already says $version"
else
  plan="bump package.json and package-lock.json from $current to $version and commit them as \"Release $version\""
fi
say "releasing $version from main ($(git rev-parse --short HEAD)) to $upstream"

# 3. The checks.
checks="${RELEASE_CHECKS:-npm run lint && npm run build && npm run test:unit}"
say "checks: $checks"
bash -c "$checks" || stop "the checks failed: nothing was changed, tagged or pushed"

# 4. The version, the tag, the push.
if [ "$dry_run" = 1 ]; then
  say "dry run: the CHANGELOG section, the repository and the checks are fine. Skipped, as a release would do them:"
  say "  - $plan;"
  say "  - tag $version (annotated \"Release $version\");"
  say "  - push main and the tag $version to $remote in one atomic push (which starts publish.yml)."
  say "dry run: nothing was written, tagged or pushed"
  exit 0
fi
if [ "$order" = 1 ]; then
  npm version "$version" --no-git-tag-version --ignore-scripts >/dev/null
  git add package.json package-lock.json
  git commit --quiet -m "Release $version"
fi
git tag -a "$version" -m "Release $version"
if ! git push --quiet --atomic "$remote" "HEAD:refs/heads/${upstream#*/}" "refs/tags/$version"; then
  say "the push failed: the commit and the tag are here only. Push them with"
  say "  git push --atomic $remote HEAD:refs/heads/${upstream#*/} refs/tags/$version"
  say "or undo them with git tag -d $version$([ "$order" = 1 ] && echo ' && git reset --keep HEAD~1')"
  exit 1
fi
say "released $version: main and the tag are on $remote; publish.yml publishes both packages from the tag"
