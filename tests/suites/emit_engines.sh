#!/bin/sh
# emit_engines.sh - issue 15 item 6: every kind `gpuplan emit` writes, for the top plan of
# every scenario of tests/roundtrip/scenarios.txt, parses in the engine's own format (JSON;
# YAML with Python's yaml, the loader the engines use) and carries only keys the engine
# documents at the version tests/fixtures/engine-keys/ cites (a key whose list entry has no
# listed children is free-form below it); shell launchers pass `bash -n`, their flags are
# the engine's (vllm, sglang) or TrainingArguments' (train.py); the Slurm scripts are
# submitted with `sbatch --test-only` to a Slurm controller started here from Debian's
# slurm-wlm (skipped with a note where it cannot run). A refusal (the engine cannot run the
# plan as planned) is a note.
. "$(dirname "$0")/../lib/suite.sh"
need_binary
need_tool python3 bash
keys=$FIXTURES/engine-keys
has_yaml=yes
python3 -c 'import yaml' 2>/dev/null || { has_yaml=no; echo "note: python3 has no yaml module (python3-yaml): YAML files get the key check only through gpuplan's own reader"; }

check_file() { # kind file
    python3 - "$1" "$2" "$keys" "$has_yaml" <<'PY'
import json, re, shlex, sys
kind, path, keydir, has_yaml = sys.argv[1:5]
text = open(path).read()
def load(name):
    return {l.strip() for l in open(f"{keydir}/{name}.txt") if l.strip() and not l.startswith("#")}
def dotted(node, prefix=""):
    if isinstance(node, dict):
        for k, v in node.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            yield key
            yield from dotted(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from dotted(v, prefix)
def allowed(key, doc):
    if key in doc:
        return True
    parts = key.split(".")
    for i in range(len(parts) - 1, 0, -1):
        pre = ".".join(parts[:i])
        if pre in doc:  # free-form below a listed key without listed children
            return not any(d.startswith(pre + ".") for d in doc)
    return False
bad = []
def check(node, doc, mode="dotted"):
    for k in dotted(node):
        name = k.rsplit(".", 1)[-1] if mode == "leaf" else k
        if mode == "top" and "." in k:
            continue
        if not allowed(name, doc):
            bad.append(k)
def yaml_docs():
    if has_yaml != "yes":
        return None
    import yaml
    return [d for d in yaml.safe_load_all(text) if d is not None]
def flags(line_text, doc, abbrev=False):
    for tok in shlex.split(line_text, comments=True):
        name = tok.split("=")[0]
        if not tok.startswith("--") or name in doc:
            continue
        # Python's argparse takes an unambiguous prefix of a flag (allow_abbrev)
        full = [d for d in doc if d.startswith(name)]
        if abbrev and len(full) == 1:
            print(f"note: {kind}: {name} is argparse's abbreviation of {full[0]} (undocumented)")
            continue
        bad.append(tok)
if kind in ("deepspeed", "trl"):
    d = json.loads(text)
    if kind == "deepspeed":
        check(d, load("deepspeed"))
    else:
        extra = set(d) - {"model", "sft_config", "lora_config"}
        bad += sorted(extra)
        check(d.get("sft_config", {}), load("trl-sftconfig"), "top")
        check(d.get("lora_config", {}), load("peft-loraconfig"), "top")
elif kind in ("accelerate", "axolotl", "llama-factory", "torchtune", "k8s", "skypilot"):
    docs = yaml_docs()
    if docs is None:
        sys.exit(0)
    name = {"k8s": "kubernetes"}.get(kind, kind)
    mode = {"axolotl": "leaf", "llama-factory": "top"}.get(kind, "dotted")
    for d in docs:
        if not isinstance(d, dict):
            bad.append("(not a mapping)")
        else:
            check(d, load(name), mode)
elif kind in ("vllm", "sglang"):
    body = re.sub(r"\\\n", " ", text)
    flags(body, load("vllm-serve" if kind == "vllm" else "sglang"), abbrev=True)
elif kind in ("torchrun", "slurm"):
    body = re.sub(r"\\\n", " ", text)
    for line in body.splitlines():
        if "train.py" in line:
            flags(line.split("train.py", 1)[1], {"--" + k for k in load("trl-sftconfig")})
if bad:
    print(f"{kind} {path}: undocumented keys: {', '.join(bad)}")
    sys.exit(1)
PY
}

# ---- a one-node Slurm controller for sbatch --test-only ----
slurm_ok=no
slurm_stop() {
    [ -f "$tmp/slurm/slurmd.pid" ] && kill "$(cat "$tmp/slurm/slurmd.pid")" 2>/dev/null
    [ -f "$tmp/slurm/ctld.pid" ] && kill "$(cat "$tmp/slurm/ctld.pid")" 2>/dev/null
    [ -f "$tmp/slurm/munged.pid" ] && kill "$(cat "$tmp/slurm/munged.pid")" 2>/dev/null
    # slurmctld saves its state as it stops: let it finish before the folder goes
    i=0
    while [ $i -lt 25 ] && [ -f "$tmp/slurm/ctld.pid" ] && kill -0 "$(cat "$tmp/slurm/ctld.pid")" 2>/dev/null; do
        sleep 0.2
        i=$((i + 1))
    done
    return 0
}
slurm_start() {
    [ "$(id -u)" = 0 ] || { echo "note: slurm: not root, sbatch --test-only skipped"; return; }
    if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
        scripts/deps.sh slurm >/dev/null 2>&1 || true
    fi
    if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
        echo "note: slurm: slurm-wlm and munge could not be installed (scripts/deps.sh slurm); sbatch --test-only skipped"
        return
    fi
    s=$tmp/slurm
    mkdir -p "$s/state" "$s/spool"
    dd if=/dev/urandom of="$s/munge.key" bs=1024 count=1 2>/dev/null
    chmod 600 "$s/munge.key"
    munged --key-file="$s/munge.key" --socket="$s/munge.sock" --pid-file="$s/munged.pid" \
        --log-file="$s/munged.log" --seed-file="$s/munged.seed" --force 2>"$s/munged.err" ||
        { echo "note: slurm: munged did not start: $(head -1 "$s/munged.err")"; return; }
    cat >"$s/slurm.conf" <<CONF
ClusterName=gpuplan-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$s/munge.sock
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/ctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmdLogFile=$s/slurmd.log
SlurmctldLogFile=$s/ctld.log
SlurmctldPort=$((20000 + $$ % 20000))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
GresTypes=gpu
ReturnToService=2
NodeName=gp[1-64] NodeAddr=127.0.0.1 CPUs=256 RealMemory=4000000 Gres=gpu:8 State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    printf 'NodeName=gp[1-64] Name=gpu Count=8\n' >"$s/gres.conf"
    SLURM_CONF=$s/slurm.conf slurmctld -f "$s/slurm.conf" 2>"$s/ctld.err" ||
        { echo "note: slurm: slurmctld did not start: $(head -1 "$s/ctld.err")"; return; }
    # One slurmd (as gp1, on this host) registers, and the partition's nodes come up; the
    # scripts are only tested (--test-only), never run.
    SLURM_CONF=$s/slurm.conf slurmd -N gp1 -f "$s/slurm.conf" 2>"$s/slurmd.err" ||
        { echo "note: slurm: slurmd did not start: $(head -1 "$s/slurmd.err")"; return; }
    i=0
    while [ $i -lt 150 ]; do
        SLURM_CONF=$s/slurm.conf sinfo -h -t idle -o %D 2>/dev/null | grep -q '[0-9]' &&
            { slurm_ok=yes; return; }
        sleep 0.2
        i=$((i + 1))
    done
    echo "note: slurm: no node came up: $(tail -1 "$s/ctld.log" 2>/dev/null)"
}
suite_exit_hook=slurm_stop
slurm_start

kinds="deepspeed accelerate torchrun slurm axolotl llama-factory torchtune trl vllm sglang k8s skypilot"
: >"$tmp/kinds_ok"
while IFS='|' read -r name args; do
    case $name in \#* | '') continue ;; esac
    name=$(echo $name)
    d=$tmp/$name
    mkdir -p "$d"
    # shellcheck disable=SC2086
    "$GPUPLAN" recommend $args --format json >"$d/plan.json" 2>/dev/null || { bad "$name: recommend"; continue; }
    for kind in $kinds; do
        out=$d/$kind.out
        if ! "$GPUPLAN" emit "$kind" "$d/plan.json" >"$out" 2>"$d/$kind.err"; then
            grep -q "cannot run this plan as planned\|this is a \(serving\|training\) plan\|is built for NVIDIA\|runs on one node" "$d/$kind.err" ||
                bad "$name $kind: $(head -1 "$d/$kind.err")"
            continue
        fi
        case $kind in
        torchrun | slurm | vllm | sglang)
            bash -n "$out" 2>"$d/$kind.sh.err" || { bad "$name $kind: bash -n: $(head -1 "$d/$kind.sh.err")"; continue; } ;;
        esac
        grep -q '"auto"\|: auto$' "$out" && { bad "$name $kind: writes auto"; continue; }
        check_file "$kind" "$out" || { bad "$name $kind"; continue; }
        if [ "$kind" = slurm ] && [ $slurm_ok = yes ]; then
            if ! SLURM_CONF=$tmp/slurm/slurm.conf sbatch --test-only "$out" >"$d/sbatch.out" 2>&1; then
                bad "$name slurm: sbatch --test-only: $(head -1 "$d/sbatch.out")"
                continue
            fi
        fi
        ok "$name $kind"
        echo "$kind" >>"$tmp/kinds_ok"
    done
done <tests/roundtrip/scenarios.txt
for kind in $kinds; do
    if grep -qx "$kind" "$tmp/kinds_ok"; then ok "every kind: $kind checked"; else bad "every kind: $kind checked in no scenario"; fi
done
[ $slurm_ok = yes ] && ok "slurm: sbatch --test-only ran"
finish
