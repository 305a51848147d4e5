"""scripts/tree_guard.sh, which `make test` uses to fail when the tests change
the source tree: silent on an unchanged tree, and in CI an error naming the
file a test wrote (the negative control: a tree that did change)."""

import os
import subprocess

GUARD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "tree_guard.sh")


def guarded(repo, between, ci):
    """tree_before; `between` (shell); tree_unchanged -> (status, stderr)."""
    env = dict(os.environ, CI="true") if ci else {k: v for k, v in os.environ.items() if k != "CI"}
    r = subprocess.run(["bash", "-c", f"source {GUARD}; tree_before; {between}; tree_unchanged"],
                       cwd=repo, env=env, capture_output=True, text=True)
    return r.returncode, r.stderr


def make_repo(tmp_path):
    def git(*a):
        subprocess.run(["git", *a], cwd=tmp_path, check=True, capture_output=True)
    git("init", "-q")
    (tmp_path / "kept.json").write_text("{}\n")
    (tmp_path / ".gitignore").write_text("/build/\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    return tmp_path


def test_an_unchanged_tree_passes(tmp_path):
    repo = make_repo(tmp_path)
    assert guarded(repo, "mkdir -p build && echo x > build/out", ci=True) == (0, "")


def test_a_rewritten_tracked_file_fails_in_ci(tmp_path):
    repo = make_repo(tmp_path)
    status, err = guarded(repo, "echo '{\"git\": 1}' > kept.json", ci=True)
    assert status == 1 and "kept.json" in err


def test_a_new_file_fails_in_ci_and_warns_elsewhere(tmp_path):
    repo = make_repo(tmp_path)
    status, err = guarded(repo, "echo x > left.txt", ci=True)
    assert status == 1 and "left.txt" in err
    status, err = guarded(repo, "echo y > left2.txt", ci=False)
    assert status == 0 and "left2.txt" in err
