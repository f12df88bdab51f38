#!/bin/sh
# Check validation/measurements.csv (and any GPU-run CSV under
# validation/gpu/out/) against the schema in validation/README.md:
# exact header, the same number of fields on every row (RFC-4180 quoting
# understood), enums within their sets, numbers that parse, a source on
# every row, and the cross-field rules (a memory number has a unit and a
# kind, an OOM row has no number, usable=no says why in notes, a row with
# no catalog model is not usable; dp x tp x pp x cp = n_gpus; ep divides
# n_gpus / pp; vpp > 1 only with pp > 1; an empty stack/ep/vpp/dp is said
# in ambiguity as "<column> n/s"). One check for the header of each file,
# then one check per row. POSIX sh + awk only.
# Usage: tests/suites/measurements_csv.sh [FILE.csv ...]
. "$(dirname "$0")/../lib/suite.sh"

if [ "$#" -eq 0 ]; then
    set -- "$root/validation/measurements.csv"
    for f in "$root"/validation/gpu/out/*.csv; do
        [ -f "$f" ] && set -- "$@" "$f"
    done
fi

for file in "$@"; do
    if [ ! -f "$file" ]; then
        bad "$file: no such file"
        continue
    fi
    # The awk program prints "FAIL ..." lines and a last line "P F".
    result=$(awk -v file="$file" '
function csv_split(line, out,    n, i, c, field, inq) {
    n = 0; field = ""; inq = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (inq) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
                else inq = 0
            } else field = field c
        } else if (c == "\"") {
            inq = 1
        } else if (c == ",") {
            out[++n] = field; field = ""
        } else field = field c
    }
    out[++n] = field
    return inq ? -1 : n
}
function in_set(v, set,    parts, k, m) {
    m = split(set, parts, " ")
    for (k = 1; k <= m; k++) if (v == parts[k]) return 1
    return 0
}
function problem(msg) { problems = problems (problems == "" ? "" : "; ") msg }
function enum(col, set, required,    v) {
    v = f[ix[col]]
    if (v == "") { if (required) problem(col " is empty"); return }
    if (!in_set(v, set)) problem(col " \047" v "\047 not in {" set "}")
}
function integer(col, required,    v) {
    v = f[ix[col]]
    if (v == "") { if (required) problem(col " is empty"); return }
    if (v !~ /^[0-9]+$/ || v + 0 < 1) problem(col " \047" v "\047 is not an integer >= 1")
}
function number(col,    v) {
    v = f[ix[col]]
    if (v == "") return
    if (v !~ /^[0-9]+(\.[0-9]+)?$/ || v + 0 <= 0) problem(col " \047" v "\047 is not a number > 0")
}
BEGIN {
    header = "row_id,source,kind,model,model_ref,method,precision,optimizer,optim_in_bwd,seq_len,micro_batch,grad_accum,grad_ckpt,attention,lora_rank,lora_targets,quant,act_offload,packed,compile,chunked_ce,gpu,gpu_ref,n_gpus,nodes,sharding,offload,tp,pp,cp,memory_value,memory_unit,memory_kind,outcome,tokens_per_s_per_gpu,throughput_kind,step_time_s,mfu,usable,ambiguity,notes,measured_date,keep_outputs,base_fp32,fsdp_wrap,host_ram_gb,lora_dropout,stack,ep,vpp,dp"
    ncols = split(header, names, ",")
    for (k = 1; k <= ncols; k++) ix[names[k]] = k
    P = 0; F = 0
}
{ sub(/\r$/, "") }
NR == 1 {
    if ($0 == header) P++
    else { F++; print "FAIL " file ": header differs from the schema" }
    next
}
$0 == "" { next }
{
    problems = ""
    n = csv_split($0, f)
    id = $0; sub(/,.*/, "", id)
    if (n < 0) problem("unterminated quoted field (fields must not span lines)")
    else if (n != ncols) problem(n " fields; the header has " ncols)
    else {
        if (id !~ /^(GT-[0-9]+[a-z]?|NT-[0-9]+[a-z]?|GPU-[0-9]+)$/) problem("row_id \047" id "\047 is not GT-<n>[a-z], NT-<n>[a-z] or GPU-<n>")
        if (id in seen) problem("row_id repeats line " seen[id])
        seen[id] = NR
        if (f[ix["source"]] == "") problem("source is empty")
        if (f[ix["model"]] == "") problem("model is empty")
        if (f[ix["gpu"]] == "") problem("gpu is empty")
        enum("kind", "M D C G", 1)
        enum("method", "full lora qlora infer dora", 1)
        enum("precision", "bf16 bf16-mixed fp16-mixed fp32 fp8-mixed amp-bf16", 0)
        enum("optimizer", "adamw adamw-8bit paged-adamw paged-adamw-8bit sgd adafactor lion", 0)
        enum("optim_in_bwd", "yes no", 0)
        enum("grad_ckpt", "none selective full", 0)
        enum("attention", "eager sdpa flash", 0)
        enum("quant", "nf4 nf4-dq torchao-nf4 int8 gptq", 0)
        enum("act_offload", "yes no", 0)
        enum("packed", "yes no", 0)
        enum("compile", "yes no blocks", 0)
        enum("chunked_ce", "yes no", 0)
        enum("keep_outputs", "yes no", 0)
        enum("base_fp32", "yes no", 0)
        enum("fsdp_wrap", "layers layers+embeddings", 0)
        number("host_ram_gb")
        number("lora_dropout")
        enum("sharding", "none ddp zero1 zero2 zero3 fsdp fsdp-hybrid", 0)
        enum("offload", "none optimizer params optimizer+params nvme", 0)
        enum("outcome", "measured oom fits", 1)
        enum("throughput_kind", "measured derived upper-bound", 0)
        enum("usable", "yes no", 1)
        integer("seq_len", 0); integer("micro_batch", 0); integer("grad_accum", 0)
        integer("lora_rank", 0); integer("n_gpus", 1); integer("nodes", 0)
        integer("tp", 0); integer("pp", 0); integer("cp", 0)
        integer("ep", 0); integer("vpp", 0); integer("dp", 0)
        enum("stack", "hf-trainer trl axolotl llama-factory unsloth torchtune torchtitan litgpt deepspeed megatron ms-swift xtuner colossalai liger accelerate other", 0)
        if (f[ix["stack"]] == "" && f[ix["ambiguity"]] !~ /stack n\/s/) problem("stack is empty and ambiguity does not say \047stack n/s\047")
        if (f[ix["ep"]] == "" && f[ix["ambiguity"]] !~ /ep n\/s/) problem("ep is empty and ambiguity does not say \047ep n/s\047")
        if (f[ix["vpp"]] == "" && f[ix["ambiguity"]] !~ /vpp n\/s/) problem("vpp is empty and ambiguity does not say \047vpp n/s\047")
        if (f[ix["dp"]] == "" && f[ix["ambiguity"]] !~ /dp n\/s/) problem("dp is empty and ambiguity does not say \047dp n/s\047")
        # world size = dp x tp x pp x cp; experts fold over the non-pipeline ranks (ep divides n_gpus / pp)
        g = f[ix["n_gpus"]] + 0; t = (f[ix["tp"]] == "" ? 1 : f[ix["tp"]] + 0)
        pq = (f[ix["pp"]] == "" ? 1 : f[ix["pp"]] + 0); c = (f[ix["cp"]] == "" ? 1 : f[ix["cp"]] + 0)
        if (f[ix["dp"]] != "" && g > 0 && f[ix["dp"]] * t * pq * c != g)
            problem("dp " f[ix["dp"]] " x tp " t " x pp " pq " x cp " c " != n_gpus " g)
        if (f[ix["ep"]] != "" && g > 0 && f[ix["ep"]] + 0 >= 1 && (g / pq) % f[ix["ep"]] != 0)
            problem("ep " f[ix["ep"]] " does not divide n_gpus / pp = " g / pq)
        if (f[ix["vpp"]] != "" && f[ix["vpp"]] + 0 > 1 && pq < 2) problem("vpp " f[ix["vpp"]] " without pipeline parallelism")
        number("memory_value"); number("tokens_per_s_per_gpu"); number("step_time_s"); number("mfu")
        if (f[ix["mfu"]] != "" && f[ix["mfu"]] + 0 > 1) problem("mfu \047" f[ix["mfu"]] "\047 is not a fraction <= 1")
        mem = f[ix["memory_value"]]
        if (mem != "") {
            enum("memory_unit", "GB GiB MB MiB", 1)
            enum("memory_kind", "allocated reserved active smi unknown", 1)
            if (f[ix["outcome"]] != "measured") problem("memory_value with outcome \047" f[ix["outcome"]] "\047")
        } else if (f[ix["memory_unit"]] != "" || f[ix["memory_kind"]] != "") {
            problem("memory_unit/memory_kind without memory_value")
        }
        if ((f[ix["tokens_per_s_per_gpu"]] != "" || f[ix["step_time_s"]] != "") && f[ix["throughput_kind"]] == "")
            problem("throughput number without throughput_kind")
        if (f[ix["method"]] ~ /lora|dora/ && f[ix["lora_rank"]] == "" && f[ix["usable"]] == "yes" && f[ix["ambiguity"]] == "")
            problem("usable LoRA row without lora_rank or an ambiguity note")
        if (f[ix["quant"]] != "" && f[ix["method"]] != "qlora" && f[ix["method"]] != "infer")
            problem("quant set on method \047" f[ix["method"]] "\047")
        if (f[ix["usable"]] == "no" && f[ix["notes"]] == "") problem("usable=no without a reason in notes")
        if (f[ix["model_ref"]] == "" && f[ix["usable"]] == "yes") problem("usable=yes without a model_ref")
        if (f[ix["measured_date"]] != "" && f[ix["measured_date"]] !~ /^[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]$/)
            problem("measured_date \047" f[ix["measured_date"]] "\047 is not YYYY-MM-DD")
    }
    if (problems == "") P++
    else { F++; print "FAIL " file " line " NR " " id ": " problems }
}
END {
    if (NR == 0) { F++; print "FAIL " file ": empty file" }
    print P, F
}' "$file")
    echo "$result" | sed '$d'
    counts=$(echo "$result" | tail -n 1)
    p=${counts% *}
    f=${counts#* }
    echo "suite: $(basename "$file"): $p rows and header passed, $f failed"
    pass=$((pass + p))
    fail=$((fail + f))
done
finish
