#!/bin/sh
# roundtrip.sh - issue 15 item 5: for every kind with both an emitter and a reader,
# `gpuplan emit KIND plan.json | gpuplan estimate --from` gives back the plan's job
# (method, precision recipe, sharding, micro-batch, accumulation, checkpointing, LoRA,
# quantisation, offload, tp/pp) and its memory per GPU within 1 %, over the top plan of
# every scenario of tests/roundtrip/scenarios.txt. A kind that refuses a plan (it cannot
# run it as planned) is noted, not failed; each kind must round-trip at least one scenario.
# The launchers' script arguments travel as the TRL file (emit trl): accelerate and
# DeepSpeed files carry no micro-batch, LoRA or checkpointing of their own.
. "$(dirname "$0")/../lib/suite.sh"
need_binary
need_tool python3

kinds="deepspeed accelerate axolotl llama-factory torchtune trl"
: >"$tmp/kinds_ok"

compare() { # plan.json estimate.json name
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))["recommendations"][0]
est = json.load(open(sys.argv[2]))
pj, ej = plan["job"], est["job_options"]
keys = ["method", "precision", "sharding", "micro_batch", "grad_accum", "grad_ckpt", "offload",
        "seq_len", "tp", "pp", "attention", "optimizer", "chunked_ce", "act_offload"]
if pj["method"] in ("lora", "qlora"):
    keys += ["lora_rank", "lora_targets"]
if pj["method"] == "qlora":
    keys += ["quant"]
diff = [f"{k}: plan {pj.get(k)} read {ej.get(k)}" for k in keys if str(pj.get(k)) != str(ej.get(k))]
m1 = plan["memory_per_gpu_bytes"]
m2 = est["memory"]["per_gpu"]["device_total_bytes"]
err = abs(m2 - m1) / m1 * 100
if err > 1.0:
    diff.append(f"memory per GPU {m1} planned, {m2} read ({err:.2f} %)")
if diff:
    print(sys.argv[3] + ": " + "; ".join(diff))
    sys.exit(1)
PY
}

while IFS='|' read -r name args; do
    case $name in \#* | '') continue ;; esac
    name=$(echo $name)
    d=$tmp/$name
    mkdir -p "$d"
    # shellcheck disable=SC2086
    if ! "$GPUPLAN" recommend $args --format json >"$d/plan.json" 2>"$d/err"; then
        bad "$name: recommend failed: $(head -1 "$d/err")"
        continue
    fi
    meta=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['recommendations']; \
p=r[0] if r else None; print('none' if not p else '%s %s:%d %d' % (p['model'], p['gpu'], \
p['gpus_per_node'], p['nodes']) + (' infer' if p['job']['method'] == 'infer' else ''))" "$d/plan.json")
    set -- $meta
    [ "$1" = none ] && { bad "$name: no plan"; continue; }
    [ "${4:-}" = infer ] && continue # serving kinds have no reader
    model=$1 gpu=$2 nodes=$3
    "$GPUPLAN" emit deepspeed "$d/plan.json" >"$d/ds_config.json" 2>/dev/null || rm -f "$d/ds_config.json"
    "$GPUPLAN" emit trl "$d/plan.json" >"$d/train.json" 2>/dev/null || rm -f "$d/train.json"
    for kind in $kinds; do
        case $kind in
        deepspeed) out=$d/ds_config.json ;;
        trl) out=$d/train.json ;;
        accelerate) out=$d/accelerate.yaml ;;
        *) out=$d/$kind.yaml ;;
        esac
        if [ ! -f "$out" ] || [ "$kind" = accelerate ] || [ "$kind" = axolotl ] ||
            [ "$kind" = llama-factory ] || [ "$kind" = torchtune ]; then
            if ! "$GPUPLAN" emit "$kind" "$d/plan.json" >"$out" 2>"$d/$kind.err"; then
                echo "note: $name: $kind refuses: $(sed -n 's/^gpuplan: error: --emit: //p' "$d/$kind.err")"
                continue
            fi
        fi
        case $kind in
        deepspeed | accelerate)
            [ -f "$d/train.json" ] || { echo "note: $name: $kind: no TRL arguments to go with it"; continue; }
            from="--from $kind:$out --from trl:$d/train.json" ;;
        *) from="--from $kind:$out" ;;
        esac
        # shellcheck disable=SC2086
        # exit 3 / 4 are verdicts (does not fit / may not fit: the 80 % range straddles), not failures
        rc=0
        "$GPUPLAN" estimate $from "$model" --gpu "$gpu" --nodes "$nodes" --format json \
            >"$d/$kind.est.json" 2>"$d/$kind.est.err" || rc=$?
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] && [ "$rc" -ne 4 ]; then
            bad "$name $kind: estimate --from failed: $(head -1 "$d/$kind.est.err")"
            continue
        fi
        if compare "$d/plan.json" "$d/$kind.est.json" "$name $kind"; then
            ok "$name $kind"
            echo "$kind" >>"$tmp/kinds_ok"
        else
            bad "$name $kind"
        fi
    done
done <tests/roundtrip/scenarios.txt

for kind in $kinds; do
    if grep -qx "$kind" "$tmp/kinds_ok"; then ok "every kind: $kind round-trips"; else bad "every kind: $kind round-trips no scenario"; fi
done
finish
