#!/bin/sh
# Check validation/gpu/measure.py without a GPU: it byte-compiles, its
# --dry-run lists the grid from the fixture configs (no torch needed), a
# filter narrows the grid, and a missing config directory is an error.
# Skips (0 passed, 0 failed) when python3 is not installed.
. "$(dirname "$0")/../lib/suite.sh"
script=$root/validation/gpu/measure.py

command -v python3 >/dev/null 2>&1 || skip "python3 not found; gpu_script checks skipped"

configs=$root/tests/fixtures/hf-configs

# Byte-compile to a scratch file so no __pycache__ lands in the tree.
if python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
    "$script" "$tmp/measure.pyc" >"$tmp/log" 2>&1; then
    ok "py_compile"
else
    cat "$tmp/log"
    bad "py_compile"
fi

if PYTHONDONTWRITEBYTECODE=1 python3 "$script" --dry-run --configs "$configs" --out "$tmp/out.csv" \
    --configs-out "$tmp/configs" >"$tmp/dry" 2>&1; then
    ok "dry-run exits 0"
else
    cat "$tmp/dry"
    bad "dry-run exits 0"
fi

n=$(sed -n 's/^\([0-9][0-9]*\) configurations;.*/\1/p' "$tmp/dry")
listed=$(grep -c '^ *[0-9][0-9]*  ' "$tmp/dry")
if [ -n "$n" ] && [ "$n" -ge 10 ] && [ "$n" = "$listed" ]; then
    ok "dry-run lists $n configurations"
else
    bad "dry-run grid count (summary '${n:-none}', listed $listed)"
fi

for want in ' full bf16-mixed ' ' full bf16 ' ' lora ' ' qlora ' 'seq 512 ' 'seq 2048 ' 'seq 4096 ' \
    'mbs 1 ' 'mbs 4 ' 'ckpt full' 'ckpt none' ' eager' ' sdpa' 'q_proj;v_proj' 'all-linear' 'of 32 layers' \
    'load-upcast' 'lora bf16 seq 2048 mbs 4 ckpt none sdpa r16 q_proj;v_proj varlen' \
    'qwen3-30b-a3b-L2 full' 'qwen3-30b-a3b-L2 lora' 'mixtral-8x7b-L2 full' '2 of 48 layers'; do
    if grep -q -- "$want" "$tmp/dry"; then ok "grid covers '$want'"; else bad "grid covers '$want'"; fi
done

if [ ! -e "$tmp/out.csv" ] && [ ! -e "$tmp/configs" ]; then
    ok "dry-run writes nothing"
else
    bad "dry-run wrote output files"
fi

if PYTHONDONTWRITEBYTECODE=1 python3 "$script" --dry-run --configs "$configs" --only 'llama-3.2-3b.*lora' \
    >"$tmp/only" 2>&1 && ! grep -q 'llama-3.2-1b\|full bf16' "$tmp/only" && grep -q 'llama-3.2-3b lora' "$tmp/only"; then
    ok "--only filters the grid"
else
    cat "$tmp/only"
    bad "--only filters the grid"
fi

if PYTHONDONTWRITEBYTECODE=1 python3 "$script" --dry-run --configs "$tmp/no-such-dir" >"$tmp/bad" 2>&1; then
    bad "missing --configs directory is an error"
else
    ok "missing --configs directory is an error"
fi

# The variable-length probe: deterministic lengths, the longest once, multiples of 16.
if PYTHONDONTWRITEBYTECODE=1 python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import measure
a, b = measure.varlen_lengths(512), measure.varlen_lengths(512)
assert a == b, "not deterministic"
assert len(a) == measure.VARLEN_STEPS and a.count(512) >= 1 and max(a) == 512
assert min(a) >= 128 and all(n % 16 == 0 for n in a), a
' "$(dirname "$script")" >"$tmp/varlen" 2>&1; then
    ok "varlen lengths are deterministic, bounded, multiples of 16"
else
    cat "$tmp/varlen"
    bad "varlen lengths are deterministic, bounded, multiples of 16"
fi

# The catalog-backed model (llama-2-7b from data/models.json) is in the grid at full depth.
if grep -q 'llama-2-7b lora bf16 seq 1024 mbs 4 ckpt full eager r8 all-linear reentrant  \[32 of 32 layers -> llama-2-7b\]' "$tmp/dry" 2>/dev/null ||
    PYTHONDONTWRITEBYTECODE=1 python3 "$script" --dry-run --configs "$configs" 2>&1 |
    grep -q 'llama-2-7b lora bf16 seq 1024 mbs 4 ckpt full eager r8 all-linear reentrant  \[32 of 32 layers -> llama-2-7b\]'; then
    ok "catalog config llama-2-7b in the grid"
else
    bad "catalog config llama-2-7b in the grid"
fi

finish
