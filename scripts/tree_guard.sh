# Sourced by scripts/test.sh: the tests leave the tree as they found it.
#   tree_before     remember `git status --porcelain` (tracked changes and files not ignored)
#   tree_unchanged  0 when it is the same now; else the difference on stderr, and
#                   1 in CI (CI set) — a warning elsewhere, where someone may be
#                   editing beside the run.
tree_before() {
    TREE_BEFORE=$(git status --porcelain 2>/dev/null)
}
tree_unchanged() {
    local after
    after=$(git status --porcelain 2>/dev/null)
    [ "$after" == "$TREE_BEFORE" ] && return 0
    echo "make test: the tests changed the source tree:" >&2
    diff <(echo "$TREE_BEFORE") <(echo "$after") | grep '^[<>]' >&2
    [ -z "${CI:-}" ]
}
