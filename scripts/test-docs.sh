#!/usr/bin/env bash
# Runs every shell block of README.md and docs/*.md as it is written, so that
# each command the documentation shows works on a fresh clone after the
# README's two commands (`./gmm.sh example`, `./gmm.sh test`: build/ and its
# build/venv). Part of `./gmm.sh test`.
#
# Which blocks run: fenced code blocks (```) whose language is sh, bash or
# shell, at any indentation (the README has some inside list items; the
# fence's indentation is removed from the block's lines). Blocks in any other
# language (mlir, c, python, console, none, ...) are text and never run. Each
# block runs as one bash script under `set -eo pipefail`: every command in it
# must succeed, and it passes when it exits 0.
#
# Skipping: a shell block is skipped only when the nearest non-blank line
# before its opening fence is the marker
#
#     <!-- docs-test: skip (REASON) -->
#
# which whoever reads the Markdown sees next to the block (rendered, it is
# hidden). It is for the README's two commands themselves and for blocks that
# must not run here, the reason saying why: a real GPU needed, system
# packages or system directories written, minutes of work. Every skipped
# block is printed with its reason. A line starting with `<!-- docs-test` that
# is not such a marker, or a marker that is not right before a shell block,
# is an error (exit 2): a typo never runs or skips a block silently.
#
# Where: the docs write commands relative to the repository root, so each
# block runs from the root of its own fresh copy of the repository: the
# files of the working tree that git tracks or would add (not the ignored
# ones), copied into a temporary directory, where `build` is a symbolic link
# to the build directory (GMM_BUILD_DIR, default build/). So a block never
# writes into the working tree, and it sees nothing that another block left
# (every block runs on its own, as a reader jumping to it would). A block
# that leaves a new, changed or removed file in its copy that git would not
# ignore fails: run verbatim in a clone, it would leave that file there (the
# docs write their outputs under /tmp, or remove them). What a block writes
# through build/ or under /tmp goes there. PYTHONPATH and
# GMM_CUDA_DRIVER_LIBRARY are removed from the environment: the docs set
# them where they are needed, and an inherited value would hide a block that
# forgot to.
#
# usage: scripts/test-docs.sh [--list] [FILE.md ...]
#   FILE.md   the Markdown files, relative to the repository root or
#             absolute (default: README.md docs/*.md)
#   --list    print every shell block with its line and whether it runs or
#             is skipped, and run nothing
# Environment: GMM_BUILD_DIR (default build/), GMM_DOCS_TIMEOUT (seconds a
# block may run, default 300), GMM_DOCS_OUTPUT_LINES (the last lines of a
# failed block's output that are printed, default 200).
# Exit status: 0 when every block that is not skipped passes, 1 when one
# fails, 2 on a usage error, a marker error or a missing build.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GMM_BUILD_DIR:-$repo/build}
limit=${GMM_DOCS_TIMEOUT:-300}
output_lines=${GMM_DOCS_OUTPUT_LINES:-200}

list_only=0
files=()
for arg in "$@"; do
  case "$arg" in
  --list) list_only=1 ;;
  -*)
    echo "usage: $0 [--list] [FILE.md ...]" >&2
    exit 2
    ;;
  *) files+=("$arg") ;;
  esac
done
if [ ${#files[@]} -eq 0 ]; then
  files=(README.md)
  for f in "$repo"/docs/*.md; do
    files+=("docs/$(basename "$f")")
  done
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gmm-docs-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------------------
# Extraction: block k's lines go to $tmp/block.k; its file, the line of its
# opening fence and its skip reason (empty: it runs) to the arrays below.
block_file=()
block_line=()
block_skip=()
nblocks=0

# shellcheck disable=SC2016 # backquotes, not an expansion
fence_open_re='^([[:space:]]*)```[[:space:]]*([^[:space:]`]*)'
fence_close_re='^[[:space:]]*```[[:space:]]*$'
marker_re='^[[:space:]]*<!--[[:space:]]*docs-test:[[:space:]]*skip[[:space:]]+\((.+)\)[[:space:]]*-->[[:space:]]*$'
marker_like_re='^[[:space:]]*<!--.*docs-test'

marker_error() { # FILE LINE MESSAGE
  echo "docs-test: error: $1:$2: $3" >&2
  exit 2
}

extract() { # FILE (relative to $repo)
  local file=$1 line n=0 in_block=0 runs=0 indent='' out='' path=$1
  local pending='' pending_line=0
  [[ $path == /* ]] || path=$repo/$file
  if [ ! -f "$path" ]; then
    echo "docs-test: error: no file $file" >&2
    exit 2
  fi
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    if [ "$in_block" = 1 ]; then
      if [[ $line =~ $fence_close_re ]]; then
        in_block=0
      elif [ "$runs" = 1 ]; then
        if [[ $line == "$indent"* ]]; then
          line=${line#"$indent"}
        else # a blank or less indented line
          line=${line#"${line%%[![:space:]]*}"}
        fi
        printf '%s\n' "$line" >>"$out"
      fi
      continue
    fi
    if [[ $line =~ $fence_open_re ]]; then
      in_block=1
      indent=${BASH_REMATCH[1]}
      case "${BASH_REMATCH[2]}" in
      sh | bash | shell)
        runs=1
        nblocks=$((nblocks + 1))
        out=$tmp/block.$nblocks
        : >"$out"
        block_file[nblocks]=$file
        block_line[nblocks]=$n
        block_skip[nblocks]=$pending
        ;;
      *)
        runs=0
        if [ -n "$pending" ]; then
          marker_error "$file" "$pending_line" \
            "the docs-test marker is not right before a sh/bash/shell block (the block at line $n is '${BASH_REMATCH[2]:-plain}')"
        fi
        ;;
      esac
      pending=''
      continue
    fi
    if [[ $line =~ $marker_re ]]; then
      [ -z "$pending" ] ||
        marker_error "$file" "$n" "two docs-test markers in a row (the other at line $pending_line)"
      pending=${BASH_REMATCH[1]}
      pending_line=$n
    elif [[ $line =~ $marker_like_re ]]; then
      marker_error "$file" "$n" "not a docs-test marker: write <!-- docs-test: skip (REASON) -->"
    elif [[ $line =~ [^[:space:]] ]] && [ -n "$pending" ]; then
      marker_error "$file" "$pending_line" \
        "the docs-test marker is not right before a sh/bash/shell block (line $n comes first)"
    fi
  done <"$path"
  [ "$in_block" = 0 ] || marker_error "$file" "$n" "a code block is not closed"
  [ -z "$pending" ] || marker_error "$file" "$pending_line" "the docs-test marker is followed by no block"
}

for f in "${files[@]}"; do
  extract "$f"
done

# Prints block K's lines, each after PREFIX.
show_block() { # K PREFIX
  local line
  while IFS= read -r line; do
    printf '%s%s\n' "$2" "$line"
  done <"$tmp/block.$1"
}

if [ "$list_only" = 1 ]; then
  for ((k = 1; k <= nblocks; k++)); do
    if [ -n "${block_skip[k]}" ]; then
      echo "SKIP  ${block_file[k]}:${block_line[k]}  (${block_skip[k]})"
    else
      echo "RUN   ${block_file[k]}:${block_line[k]}"
    fi
    show_block "$k" '      | '
  done
  exit 0
fi

# ---------------------------------------------------------------------------
# The copy of the repository root that every block starts from.
if [ ! -x "$build/bin/gmm-opt" ] || [ ! -x "$build/venv/bin/python" ]; then
  echo "docs-test: error: no build with its venv at $build: run ./gmm.sh example or ./gmm.sh test first" >&2
  exit 2
fi
build=$(cd "$build" && pwd)
if ! git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "docs-test: error: $repo is not a git working tree (git lists the files each block's copy gets)" >&2
  exit 2
fi
pristine=$tmp/pristine
mkdir "$pristine"
git -C "$repo" ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do
    # Tracked files deleted in the working tree are not there to copy.
    if [ -e "$repo/$f" ] || [ -L "$repo/$f" ]; then
      printf '%s\0' "$f"
    fi
  done |
  tar -C "$repo" --null -T - -cf - | tar -C "$pristine" -xf -
list_files() { # DIR: its files, relative, sorted, without build/
  (cd "$1" && find . -path ./build -prune -o \( -type f -o -type l \) -print) |
    sed 's|^\./||' | LC_ALL=C sort
}
list_files "$pristine" >"$tmp/pristine.list"

# Prints what the block run in DIR left that git would show in a clone: new,
# changed or removed files, except those .gitignore ignores.
leftovers() { # DIR STAMP
  local dir=$1 stamp=$2 f
  list_files "$dir" >"$tmp/after.list"
  {
    LC_ALL=C comm -13 "$tmp/pristine.list" "$tmp/after.list" | sed 's/^/new: /'
    LC_ALL=C comm -23 "$tmp/pristine.list" "$tmp/after.list" | sed 's/^/removed: /'
    (cd "$dir" && find . -path ./build -prune -o -type f -newer "$stamp" -print) |
      sed 's|^\./||' | while IFS= read -r f; do
        if [ -e "$pristine/$f" ] && ! cmp -s "$pristine/$f" "$dir/$f"; then
          echo "changed: $f"
        fi
      done
  } | while IFS= read -r f; do
    # new/removed/changed: PATH; keep what git would not ignore.
    if ! git -C "$repo" check-ignore -q --no-index -- "${f#*: }"; then
      echo "$f"
    fi
  done
}

# Formats microseconds as seconds with one decimal.
seconds() { printf '%d.%d s' $(($1 / 1000000)) $(($1 % 1000000 / 100000)); }
now_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }

# ---------------------------------------------------------------------------
passed=0
failed=0
skipped=0
failures=()
start_all=$(now_us)

for ((k = 1; k <= nblocks; k++)); do
  where="${block_file[k]}:${block_line[k]}"
  if [ -n "${block_skip[k]}" ]; then
    skipped=$((skipped + 1))
    echo "SKIP  $where  (${block_skip[k]})"
    show_block "$k" '      | '
    continue
  fi

  dir=$tmp/run.$k
  cp -a "$pristine" "$dir"
  ln -s "$build" "$dir/build"
  stamp=$tmp/stamp.$k
  touch "$stamp"
  # Line 3 of the script is the block's first line, the fence's line + 1.
  script=$tmp/script.$k
  {
    echo 'set -eo pipefail'
    printf '%s\n' "trap 'docs_test_status=\$?; echo \"docs-test: exit status \$docs_test_status at ${block_file[k]}:\$((LINENO + ${block_line[k]} - 2)): \$BASH_COMMAND\" >&2' ERR"
    cat "$tmp/block.$k"
  } >"$script"

  log=$tmp/log.$k
  t0=$(now_us)
  status=0
  (cd "$dir" && exec env -u PYTHONPATH -u GMM_CUDA_DRIVER_LIBRARY \
    timeout -k 10 "$limit" bash --noprofile --norc "$script") \
    </dev/null >"$log" 2>&1 || status=$?
  t1=$(now_us)
  took=$(seconds $((t1 - t0)))

  problem=''
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    problem="timed out after $limit s (GMM_DOCS_TIMEOUT)"
  elif [ "$status" != 0 ]; then
    problem="exit status $status"
  else
    left=$(leftovers "$dir" "$stamp")
    if [ -n "$left" ]; then
      problem="it leaves the working tree changed (the docs write outputs under /tmp, or remove them):"
      problem+=$'\n'"$(printf '%s\n' "$left" | sed 's/^/        /')"
    fi
  fi
  rm -rf "$dir"

  if [ -z "$problem" ]; then
    passed=$((passed + 1))
    echo "PASS  $where  ($took)"
    continue
  fi
  failed=$((failed + 1))
  failures+=("$where")
  echo "FAIL  $where  ($took): $problem"
  echo "      --- the block ---"
  show_block "$k" '      | '
  total=$(wc -l <"$log")
  if [ "$total" -gt "$output_lines" ]; then
    echo "      --- its output (the last $output_lines of $total lines) ---"
  else
    echo "      --- its output ---"
  fi
  tail -n "$output_lines" "$log"
  echo "      ---"
done

took=$(seconds $(($(now_us) - start_all)))
echo "docs-test: $((passed + failed)) blocks run ($passed passed, $failed failed), $skipped skipped, in $took"
if [ "$failed" -gt 0 ]; then
  echo "docs-test: FAILED: ${failures[*]}"
  exit 1
fi
