#!/usr/bin/env bash
# On the GPU machine: the dynamic checkers users have, on real torch.compile kernels, beside
# llverify.  (1) llverify's hook validating every kernel a torch.compile run loads;
# (2) compute-sanitizer racecheck over the same workloads; (3) Triton's ConSan where the
# installed release has it.  Logs go to $OUT; benchmarks/gpu/dynamic_checkers_table.py reads them.
# Needs z3-solver as a wheel under .whl (the machine has no network).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS=1
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"
grep -rl "consan" "$(python3 -c 'import triton, os; print(os.path.dirname(triton.__file__))')" \
    --include=*.py | head -5 > "$OUT/consan_files.txt"
workloads=${WORKLOADS:-norms gpt2}
for w in $workloads; do
  timeout 240 python3 -m llverify.hook --report "$OUT/hook_$w.json" --jobs 8 \
      benchmarks/gpu/inductor_corpus.py --child "$w" --out "/tmp/hook_$w" \
      > "$OUT/hook_$w.txt" 2>&1
  echo "hook $w: rc=$?"; tail -25 "$OUT/hook_$w.txt"
done
for w in $workloads; do
  timeout 200 compute-sanitizer --tool racecheck --target-processes all --print-limit 200 \
      python3 benchmarks/gpu/inductor_corpus.py --child "$w" --out "/tmp/rc_$w" \
      > "$OUT/racecheck_$w.txt" 2>&1
  echo "racecheck $w: rc=$?"; grep -E "RACECHECK SUMMARY|hazard" "$OUT/racecheck_$w.txt" | tail -3
done
for w in $workloads; do
  TRITON_INSTRUMENTATION_MODE=consan timeout 120 python3 benchmarks/gpu/inductor_corpus.py \
      --child "$w" --out "/tmp/cs_$w" > "$OUT/consan_$w.txt" 2>&1
  echo "consan $w: rc=$?"; tail -3 "$OUT/consan_$w.txt"
done
