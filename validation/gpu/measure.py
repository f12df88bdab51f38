#!/usr/bin/env python3
"""Measure real peak GPU memory and step time of LLM fine-tuning on one GPU.

Builds random-initialised models from Hugging Face config.json files (the
fixtures in tests/fixtures/hf-configs, so nothing is downloaded), runs a
few training steps on random token ids (labels = inputs) for a grid of
configurations, and writes one CSV row per measurement in the schema of
validation/measurements.csv (see validation/README.md): kind G, memory in
MiB, one row for max_memory_allocated and one for max_memory_reserved.

Deliberately not done: real data, data loaders, evaluation, multi-GPU.
Every position of every sequence is a real token (no padding), which is
what a packed data set gives.

Configs whose depth is reduced (num_hidden_layers) are written to
validation/gpu/configs/ so that `gpuplan estimate PATH` predicts exactly the
model that was measured; the row's model_ref names that file.

Needs: torch, transformers, peft (bitsandbytes only for the QLoRA rows,
which are skipped when it is missing). --dry-run needs none of them.
"""

import argparse
import csv
import datetime
import gc
import json
import os
import re
import shutil
import sys
import tempfile
import time

COLUMNS = (
    "row_id,source,kind,model,model_ref,method,precision,optimizer,optim_in_bwd,seq_len,"
    "micro_batch,grad_accum,grad_ckpt,attention,lora_rank,lora_targets,quant,act_offload,"
    "packed,compile,chunked_ce,gpu,gpu_ref,n_gpus,nodes,sharding,offload,tp,pp,cp,"
    "memory_value,memory_unit,memory_kind,outcome,tokens_per_s_per_gpu,throughput_kind,"
    "step_time_s,mfu,usable,ambiguity,notes,measured_date,keep_outputs,base_fp32,fsdp_wrap,host_ram_gb,lora_dropout"
).split(",")

BYTES_PER_MIB = 1 << 20

# Fixture models: (key, fixture file, catalog id when the depth is unchanged).
# A file named "catalog:ID" is the config embedded in data/models.json.
MODELS = {
    "llama-2-7b": ("catalog:llama-2-7b", "llama-2-7b"),
    "llama-3.2-1b": ("llama-3.2-1b.json", "llama-3.2-1b"),
    "llama-3.2-3b": ("llama-3.2-3b.json", "llama-3.2-3b"),
    "llama-3.1-8b": ("llama-3.1-8b.json", "llama-3.1-8b"),
    "qwen2.5-7b": ("qwen2.5-7b.json", ""),
    # MoE probes (depth-reduced): many small experts (128, top-8) and few large ones (8, top-2),
    # both run by transformers' per-expert loop.
    "qwen3-30b-a3b": ("qwen3-30b-a3b.json", "qwen3-30b-a3b"),
    "mixtral-8x7b": ("mixtral-8x7b-v0.1.json", "mixtral-8x7b"),
}

QV = ("q_proj", "v_proj")
ALL_LINEAR = "all-linear"
# Explicit list for PEFT versions older than 0.8 (no "all-linear" shortcut).
ALL_LINEAR_NAMES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def cfg(model, method, seq, mbs, ckpt="none", attn="sdpa", precision=None, layers=None,
        rank=None, targets=None, reentrant=False, varlen=False, compile_blocks=False, load=None):
    """One grid point. precision: bf16-mixed (fp32 weights + autocast) or bf16 (pure).

    reentrant: torch.utils.checkpoint with use_reentrant=True (LLaMA-Factory's
    default) instead of False. varlen: every step has its own sequence length
    (VARLEN_STEPS steps, lengths drawn once from a fixed seed between seq/4 and
    seq, multiples of 16), like dynamically padded batches of an unpacked data
    set; seq is the longest. compile_blocks: torch.compile each decoder layer
    (nn.Module.compile), the loss left eager, as gpuplan's --compile blocks.
    load: "upcast" builds the model in fp32 and casts it to bf16 before training
    (what a stack that loads without a torch_dtype and casts afterwards does):
    the load moment then peaks at the fp32 weights, above the bf16 training
    weights; the run writes that moment as a row of its own (usable no: gpuplan
    does not model the load moment yet).
    """
    if precision is None:
        precision = "bf16-mixed" if method == "full" else "bf16"
    return {
        "model": model, "layers": layers, "method": method, "precision": precision,
        "seq": seq, "mbs": mbs, "ckpt": ckpt, "attn": attn,
        "rank": rank if method in ("lora", "qlora") else None,
        "targets": targets if method in ("lora", "qlora") else None,
        "reentrant": bool(reentrant and ckpt == "full"), "varlen": bool(varlen),
        "compile_blocks": bool(compile_blocks), "load": load,
    }


VARLEN_STEPS = 12


def varlen_lengths(seq):
    """The per-step lengths of a varlen configuration (deterministic)."""
    import random
    rng = random.Random(20261130)
    lo = max(16, seq // 4)
    out = [min(seq, ((rng.randint(lo, seq) + 15) // 16) * 16) for _ in range(VARLEN_STEPS - 1)]
    out.insert(rng.randint(0, len(out)), seq)  # the longest batch occurs once, somewhere
    return out


def build_grid():
    """The grid, most informative first: the time budget cuts the tail.

    One-factor-at-a-time around a base point per model, so each row
    isolates one effect (micro batch, sequence, checkpointing, attention
    kernel, precision, LoRA targets, rank, quantization).
    """
    g = []
    # Probes for the published rows that miss most (docs/validation.md):
    # LLaMA-Factory's Llama-2-7B LoRA table (GT-52/53 q,v vs GT-57/58 all
    # modules, 4 x 1024, reentrant recompute): does LoRA on every linear add
    # 11 GB? Then the per-token growth at batch 1 (GT-59..63 grow 0.79 MB/token
    # against 0.65 predicted). Then reserved vs allocated with variable-length
    # batches (GT-113b/114b: reserved 1.7 x allocated) against a fixed-shape twin.
    m2 = "llama-2-7b"
    g += [
        cfg(m2, "lora", 1024, 4, ckpt="full", attn="eager", rank=8, targets=QV, reentrant=True),
        cfg(m2, "lora", 1024, 4, ckpt="full", attn="eager", rank=8, targets=ALL_LINEAR, reentrant=True),
        cfg(m2, "lora", 1024, 4, ckpt="full", attn="sdpa", rank=8, targets=ALL_LINEAR, reentrant=True),
        cfg(m2, "lora", 4096, 1, ckpt="full", rank=8, targets=ALL_LINEAR, reentrant=True),
        cfg(m2, "lora", 8192, 1, ckpt="full", rank=8, targets=ALL_LINEAR, reentrant=True),
        cfg(m2, "lora", 16384, 1, ckpt="full", rank=8, targets=ALL_LINEAR, reentrant=True),
        cfg("llama-3.2-1b", "full", 512, 16, ckpt="full"),
        cfg("llama-3.2-1b", "full", 512, 16, ckpt="full", varlen=True),
        # torch.compile of the blocks (docs/formulas.md "torch.compile"): the same job
        # eager and compiled, no recompute, so the saved activations differ.
        cfg("llama-3.2-1b", "full", 2048, 2, precision="bf16"),
        cfg("llama-3.2-1b", "full", 2048, 2, precision="bf16", compile_blocks=True),
        # The load moment (issue 16): built in fp32 then cast to bf16, against the same job
        # built in bf16 directly (the row above with seq 2048 x 2).
        cfg("llama-3.2-1b", "full", 2048, 2, precision="bf16", load="upcast"),
        # The caching allocator under changing shapes: LoRA (small optimizer, activations
        # dominate) with variable-length batches against its fixed-shape twin; the run
        # records the reserved memory after every step.
        cfg("llama-3.2-1b", "lora", 2048, 4, rank=16, targets=QV, varlen=True),
        # MoE layers as transformers runs them (a loop over the experts that got tokens):
        # memory and step time of many small experts vs few large ones.
        cfg("qwen3-30b-a3b", "full", 2048, 1, precision="bf16", layers=2),
        cfg("qwen3-30b-a3b", "lora", 2048, 1, rank=16, targets=QV, layers=2),
        cfg("mixtral-8x7b", "full", 2048, 1, precision="bf16", layers=2),
    ]
    m1 = "llama-3.2-1b"
    g += [
        cfg(m1, "full", 2048, 1),
        cfg(m1, "full", 2048, 4),
        cfg(m1, "full", 2048, 4, ckpt="full"),
        cfg(m1, "full", 512, 4),
        cfg(m1, "full", 4096, 1),
        cfg(m1, "full", 2048, 1, attn="eager"),
        cfg(m1, "full", 4096, 1, attn="eager"),
        cfg(m1, "full", 2048, 1, precision="bf16"),
        cfg(m1, "full", 2048, 4, ckpt="full", precision="bf16"),
        cfg(m1, "lora", 2048, 1, rank=16, targets=QV),
        cfg(m1, "lora", 2048, 4, rank=16, targets=QV),
        cfg(m1, "lora", 2048, 4, rank=16, targets=ALL_LINEAR),
        cfg(m1, "lora", 2048, 4, ckpt="full", rank=8, targets=QV),
        cfg(m1, "lora", 4096, 4, ckpt="full", rank=16, targets=ALL_LINEAR),
    ]
    m3 = "llama-3.2-3b"
    g += [
        cfg(m3, "full", 2048, 1),
        cfg(m3, "full", 2048, 4, ckpt="full"),
        cfg(m3, "full", 4096, 1, ckpt="full", precision="bf16"),
        cfg(m3, "lora", 2048, 4, rank=16, targets=QV),
        cfg(m3, "lora", 4096, 4, ckpt="full", rank=16, targets=ALL_LINEAR),
        cfg(m3, "lora", 512, 4, attn="eager", rank=8, targets=QV),
        # Expected to run out of memory (eager attention keeps 4 x 24 x 4096^2
        # scores per layer): checks the OOM path and gives an OOM row.
        cfg(m3, "full", 4096, 4, attn="eager"),
    ]
    m8 = "llama-3.1-8b"
    g += [
        cfg(m8, "lora", 2048, 1, ckpt="full", rank=16, targets=QV),
        cfg(m8, "full", 2048, 1, ckpt="full", precision="bf16"),
        cfg(m8, "full", 2048, 1, ckpt="full", layers=8),
        cfg(m8, "full", 4096, 1, precision="bf16", layers=8),
        cfg(m8, "lora", 4096, 4, ckpt="full", rank=16, targets=QV, layers=8),
        cfg(m8, "lora", 2048, 4, rank=16, targets=ALL_LINEAR, layers=8),
    ]
    mq = "qwen2.5-7b"
    g += [
        cfg(mq, "lora", 2048, 4, ckpt="full", rank=16, targets=ALL_LINEAR, layers=8),
        cfg(mq, "full", 2048, 1, ckpt="full", layers=8),
    ]
    g += [
        cfg(m8, "qlora", 2048, 4, ckpt="full", rank=16, targets=ALL_LINEAR, layers=8),
        cfg(m3, "qlora", 2048, 4, ckpt="full", rank=16, targets=ALL_LINEAR),
        cfg(m1, "qlora", 2048, 1, rank=8, targets=QV),
    ]
    return g


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def default_configs_dir():
    return os.path.join(repo_root(), "tests", "fixtures", "hf-configs")


def load_config(configs_dir, key, layers):
    """The fixture config as a dict, with num_hidden_layers overridden."""
    fname, _ = MODELS[key]
    if fname.startswith("catalog:"):
        with open(os.path.join(repo_root(), "data", "models.json"), encoding="utf-8") as f:
            catalog = json.load(f)
        entries = catalog["models"] if isinstance(catalog, dict) else catalog
        conf = next(dict(m["config"]) for m in entries if m.get("id") == fname[len("catalog:"):])
    else:
        with open(os.path.join(configs_dir, fname), encoding="utf-8") as f:
            conf = json.load(f)
    full_layers = int(conf["num_hidden_layers"])
    if layers is not None:
        if layers < 1 or layers > full_layers:
            raise ValueError("layers %d out of range 1..%d for %s" % (layers, full_layers, key))
        conf["num_hidden_layers"] = layers
        # Newer configs list a per-layer attention type; keep it consistent.
        if isinstance(conf.get("layer_types"), list):
            conf["layer_types"] = conf["layer_types"][:layers]
    return conf, full_layers


def config_out_path(configs_out, key, n_layers):
    return os.path.join(configs_out, "%s-L%d.json" % (key, n_layers))


def model_ref_for(key, layers, full_layers, path):
    """Catalog id when the model is the catalog's, else the config path (repo-relative)."""
    catalog_id = MODELS[key][1]
    if catalog_id and (layers is None or layers == full_layers):
        return catalog_id
    root = repo_root()
    ap = os.path.abspath(path)
    return os.path.relpath(ap, root) if ap.startswith(root + os.sep) else ap


def describe(c):
    parts = [c["model"] + ("-L%d" % c["layers"] if c["layers"] else ""), c["method"], c["precision"],
             "seq %d" % c["seq"], "mbs %d" % c["mbs"], "ckpt %s" % c["ckpt"], c["attn"]]
    if c["rank"]:
        t = c["targets"] if isinstance(c["targets"], str) else ";".join(c["targets"])
        parts.append("r%d %s" % (c["rank"], t))
    if c.get("reentrant"):
        parts.append("reentrant")
    if c.get("varlen"):
        parts.append("varlen")
    if c.get("compile_blocks"):
        parts.append("compile-blocks")
    if c.get("load"):
        parts.append("load-" + c["load"])
    return " ".join(parts)


def csv_field(v):
    s = "" if v is None else str(v)
    # Keep fields free of commas and quotes so simple readers work too.
    return s.replace(",", ";").replace('"', "'").replace("\n", " ")


# ---------------------------------------------------------------- torch part


def version_tuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


class Runner:
    def __init__(self, args):
        import torch
        import transformers

        self.torch = torch
        self.transformers = transformers
        try:
            import peft
            self.peft = peft
        except ImportError:
            self.peft = None
        try:
            import bitsandbytes  # noqa: F401
            self.has_bnb = True
        except Exception:  # a broken bnb install raises more than ImportError
            self.has_bnb = False
        self.args = args
        self.saved_dirs = {}
        # transformers 4.56 renamed from_config/from_pretrained's torch_dtype to dtype.
        newer = version_tuple(transformers.__version__) >= (4, 56)
        self.dtype_kw = ("dtype", "torch_dtype") if newer else ("torch_dtype", "dtype")

    def versions(self):
        v = "torch %s transformers %s" % (self.torch.__version__, self.transformers.__version__)
        if self.peft is not None:
            v += " peft %s" % self.peft.__version__
        if self.has_bnb:
            import bitsandbytes
            v += " bitsandbytes %s" % getattr(bitsandbytes, "__version__", "?")
        return v

    def config_object(self, conf):
        d = dict(conf)
        model_type = d.pop("model_type")
        return self.transformers.AutoConfig.for_model(model_type, **d)

    def from_config(self, config, dtype, attn):
        """AutoModelForCausalLM.from_config with the dtype keyword this version takes."""
        auto = self.transformers.AutoModelForCausalLM
        last = None
        for kw in self.dtype_kw:
            try:
                with self.torch.device("cuda"):
                    return auto.from_config(config, attn_implementation=attn, **{kw: dtype})
            except TypeError as e:  # the other keyword name
                last = e
        raise last

    def from_pretrained_4bit(self, path, attn):
        t = self.torch
        bnb_config = self.transformers.BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=False,
            bnb_4bit_compute_dtype=t.bfloat16)
        auto = self.transformers.AutoModelForCausalLM
        last = None
        for kw in self.dtype_kw:
            try:
                return auto.from_pretrained(path, quantization_config=bnb_config, device_map={"": 0},
                                            attn_implementation=attn, **{kw: t.bfloat16})
            except TypeError as e:
                last = e
        raise last

    def saved_model_dir(self, key, conf, attn):
        """Write a random bf16 model once per (model, depth) so bnb can quantize it on load."""
        tag = (key, conf["num_hidden_layers"])
        if tag not in self.saved_dirs:
            d = tempfile.mkdtemp(prefix="gpuplan-qlora-")
            model = self.from_config(self.config_object(conf), self.torch.bfloat16, attn)
            model.save_pretrained(d, safe_serialization=True)
            del model
            gc.collect()
            self.torch.cuda.empty_cache()
            self.saved_dirs[tag] = d
        return self.saved_dirs[tag]

    def cleanup(self):
        for d in self.saved_dirs.values():
            shutil.rmtree(d, ignore_errors=True)
        self.saved_dirs = {}

    def enable_ckpt(self, model, reentrant=False):
        try:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": reentrant})
        except TypeError:  # transformers < 4.35
            model.gradient_checkpointing_enable()
        # A reentrant checkpoint of a frozen base needs an input that requires grad
        # (PEFT / LLaMA-Factory do the same); harmless otherwise.
        model.enable_input_require_grads()

    def compile_blocks(self, model):
        """torch.compile every decoder layer in place (the first step pays for compiling)."""
        n = 0
        for m in model.modules():
            if type(m).__name__.endswith("DecoderLayer"):
                m.compile()
                n += 1
        if n == 0:
            raise RuntimeError("no decoder layers found to compile")

    def add_lora(self, model, c):
        peft = self.peft
        targets = c["targets"]
        if targets == ALL_LINEAR and version_tuple(peft.__version__) < (0, 8):
            targets = list(ALL_LINEAR_NAMES)
        elif not isinstance(targets, str):
            targets = list(targets)
        lc = peft.LoraConfig(r=c["rank"], lora_alpha=2 * c["rank"], lora_dropout=0.0,
                             target_modules=targets, bias="none", task_type="CAUSAL_LM")
        return peft.get_peft_model(model, lc)

    def run(self, c, conf):
        """Build, train warm-up + timed steps; return a result dict (raises on OOM)."""
        t = self.torch
        args = self.args
        config = None
        if c["method"] == "qlora":
            path = self.saved_model_dir(c["model"], conf, c["attn"])
        else:
            config = self.config_object(conf)
        gc.collect()
        t.cuda.empty_cache()
        t.cuda.reset_peak_memory_stats()
        base_alloc = t.cuda.memory_allocated()
        t0 = time.time()
        if c["method"] == "qlora":
            model = self.from_pretrained_4bit(path, c["attn"])
        else:
            # bf16-mixed: fp32 master weights, bf16 autocast; others: bf16 weights.
            dtype = t.float32 if c["precision"] == "bf16-mixed" else t.bfloat16
            if c.get("load") == "upcast":  # fp32 first, then cast: the load moment's peak
                model = self.from_config(config, t.float32, c["attn"])
                model = model.to(dtype)
                gc.collect()
            else:
                model = self.from_config(config, dtype, c["attn"])
        p = next(model.parameters())
        if p.device.type != "cuda":
            model = model.to("cuda")
        model.config.use_cache = False
        if c["ckpt"] == "full":
            self.enable_ckpt(model, c.get("reentrant", False))
        if c["method"] in ("lora", "qlora"):
            model = self.add_lora(model, c)
        if c.get("compile_blocks"):
            self.compile_blocks(model)
        model.train()
        params = [q for q in model.parameters() if q.requires_grad]
        n_trainable = sum(q.numel() for q in params)
        opt = t.optim.AdamW(params, lr=1e-5, fused=(args.adamw == "fused"),
                            foreach=(args.adamw == "foreach"))
        build_s = time.time() - t0
        t.cuda.synchronize()
        load_alloc = t.cuda.max_memory_allocated()  # the peak up to here: the load moment
        load_reserved = t.cuda.memory_reserved()
        if c.get("load"):
            # the training step's own peak, apart from the load moment's
            t.cuda.reset_peak_memory_stats()
        vocab = int(conf["vocab_size"])
        ids = t.randint(0, vocab, (c["mbs"], c["seq"]), device="cuda")
        use_autocast = c["precision"] == "bf16-mixed" or c["method"] in ("lora", "qlora")
        lengths = varlen_lengths(c["seq"]) if c.get("varlen") else None

        def step():
            nonlocal ids
            if lengths is not None:
                ids = t.randint(0, vocab, (c["mbs"], lengths[step.n % len(lengths)]), device="cuda")
                step.n += 1
            if use_autocast:
                with t.autocast("cuda", dtype=t.bfloat16):
                    loss = model(input_ids=ids, labels=ids).loss
            else:
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if lengths is not None:  # how the cache grows as the shapes change
                reserved_curve.append(t.cuda.memory_reserved())
            return loss

        step.n = 0
        reserved_curve = []
        times = []
        for _ in range(args.warmup):
            t.cuda.synchronize()
            s = time.time()
            step()
            t.cuda.synchronize()
            times.append(time.time() - s)
        warm_s = times[-1] if times else 0.0
        if c.get("compile_blocks"):
            # The warm-up step compiled the layers; count the compiled steps only.
            t.cuda.reset_peak_memory_stats()
        n_timed = args.steps
        if warm_s > 0:
            n_timed = max(1, min(args.steps, int((args.per_config_s - build_s) / warm_s) - args.warmup))
        if lengths is not None:  # every length once, whatever the budget
            n_timed = max(1, len(lengths) - args.warmup)
        t.cuda.synchronize()
        s = time.time()
        for _ in range(n_timed):
            loss = step()
        t.cuda.synchronize()
        step_s = (time.time() - s) / n_timed
        res = {
            "alloc": t.cuda.max_memory_allocated(), "reserved": t.cuda.max_memory_reserved(),
            "step_s": step_s, "n_timed": n_timed, "build_s": build_s, "base_alloc": base_alloc,
            "trainable": n_trainable, "loss": float(loss.detach().float().item()),
            "load_alloc": load_alloc, "load_reserved": load_reserved, "reserved_curve": reserved_curve,
            "tokens_per_step": (sum(lengths[args.warmup:args.warmup + n_timed]) / n_timed * c["mbs"]
                                if lengths is not None else c["mbs"] * c["seq"]),
        }
        del model, opt, params, ids, loss
        return res


def gpu_ref_for(name):
    n = name.upper()
    if "NVL" in n or "PCIE" in n:
        return ""  # the catalog ids below are the SXM parts
    if "H200" in n:
        return "h200-sxm"
    if "H100" in n and ("SXM" in n or "HBM3" in n):
        return "h100-sxm"
    if "A100" in n and "80GB" in n:
        return "a100-80gb-sxm"
    if "A100" in n:
        return "a100-40gb-sxm"
    if "B200" in n:
        return "b200"
    return ""


def is_oom(e, torch):
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(e, oom_type):
        return True
    return isinstance(e, RuntimeError) and "out of memory" in str(e).lower()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--configs", default=default_configs_dir(), help="directory of fixture config.json files")
    ap.add_argument("--out", default=os.path.join(here, "out", "measurements-gpu.csv"))
    ap.add_argument("--configs-out", default=os.path.join(here, "configs"),
                    help="where the (depth-reduced) configs that were measured are written")
    ap.add_argument("--time-budget-s", type=float, default=420.0,
                    help="start no new configuration after this many seconds from start")
    ap.add_argument("--per-config-s", type=float, default=25.0,
                    help="aim for at most this long per configuration (fewer timed steps)")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--steps", type=int, default=3, help="timed steps per configuration (at most)")
    ap.add_argument("--adamw", choices=("foreach", "fused"), default="foreach",
                    help="torch AdamW implementation (foreach = the default HF Trainer gets)")
    ap.add_argument("--only", default="", help="regex over the description: run matching configurations only")
    ap.add_argument("--limit", type=int, default=0, help="run at most N configurations")
    ap.add_argument("--dry-run", action="store_true", help="list the grid; needs no torch")
    args = ap.parse_args(argv)
    start = time.time()

    grid = build_grid()
    if args.only:
        grid = [c for c in grid if re.search(args.only, describe(c))]
    if args.limit > 0:
        grid = grid[:args.limit]

    # Check every config up front (cheap, and the dry run's real test).
    confs = []
    for c in grid:
        try:
            conf, full_layers = load_config(args.configs, c["model"], c["layers"])
        except (OSError, ValueError, KeyError) as e:
            print("error: cannot use the config for %s in %s: %s" % (c["model"], args.configs, e), file=sys.stderr)
            print("hint: pass --configs DIR (the fixtures' hf-configs folder)", file=sys.stderr)
            return 2
        path = config_out_path(args.configs_out, c["model"], int(conf["num_hidden_layers"]))
        confs.append((conf, full_layers, path))

    if args.dry_run:
        for i, (c, (conf, full_layers, path)) in enumerate(zip(grid, confs), 1):
            extra = " (needs bitsandbytes)" if c["method"] == "qlora" else ""
            print("%3d  %s  [%d of %d layers -> %s]%s" % (
                i, describe(c), conf["num_hidden_layers"], full_layers,
                model_ref_for(c["model"], c["layers"], full_layers, path), extra))
        print("%d configurations; time budget %.0f s; output %s" % (len(grid), args.time_budget_s, args.out))
        return 0

    import torch
    if not torch.cuda.is_available():
        print("error: no CUDA device", file=sys.stderr)
        return 1
    runner = Runner(args)
    gpu = torch.cuda.get_device_name(0)
    today = datetime.date.today().isoformat()
    source = "GPU validation/gpu/measure.py (%s)" % runner.versions()
    print("gpu: %s; %s" % (gpu, runner.versions()), flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    os.makedirs(args.configs_out, exist_ok=True)

    row_n = 0
    n_done = n_oom = n_skip = 0
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(COLUMNS)
        f.flush()
        for i, (c, (conf, full_layers, path)) in enumerate(zip(grid, confs), 1):
            elapsed = time.time() - start
            desc = describe(c)
            if elapsed > args.time_budget_s:
                print("[%4.0fs] budget spent: not starting %d remaining configurations" % (
                    elapsed, len(grid) - i + 1), flush=True)
                n_skip += len(grid) - i + 1
                break
            if c["method"] in ("lora", "qlora") and runner.peft is None:
                print("[%4.0fs] %2d skip %s (peft not importable)" % (elapsed, i, desc), flush=True)
                n_skip += 1
                continue
            if c["method"] == "qlora" and not runner.has_bnb:
                print("[%4.0fs] %2d skip %s (bitsandbytes not importable)" % (elapsed, i, desc), flush=True)
                n_skip += 1
                continue
            with open(path, "w", encoding="utf-8") as cf:
                json.dump(conf, cf, indent=2, sort_keys=True)
                cf.write("\n")
            print("[%4.0fs] %2d run  %s" % (elapsed, i, desc), flush=True)
            res = None
            err = None
            try:
                res = runner.run(c, conf)
            except Exception as e:  # OOM is a result; anything else is reported and skipped
                if is_oom(e, torch):
                    err = "oom"
                else:
                    err = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
            gc.collect()
            torch.cuda.empty_cache()

            model_ref = model_ref_for(c["model"], c["layers"], full_layers, path)
            n_layers = int(conf["num_hidden_layers"])
            targets = c["targets"]
            if targets is not None and not isinstance(targets, str):
                targets = ";".join(targets)
            base = {
                "source": source, "kind": "G",
                "model": "%s fixture config with %d of %d layers" % (c["model"], n_layers, full_layers),
                "model_ref": model_ref, "method": c["method"], "precision": c["precision"],
                "optimizer": "adamw", "optim_in_bwd": "no", "seq_len": c["seq"], "micro_batch": c["mbs"],
                "grad_accum": 1, "grad_ckpt": c["ckpt"], "attention": c["attn"],
                "lora_rank": c["rank"] or "", "lora_targets": targets or "",
                "quant": "nf4" if c["method"] == "qlora" else "", "act_offload": "no",
                "packed": "no" if c.get("varlen") else "yes",
                "compile": "blocks" if c.get("compile_blocks") else "no", "chunked_ce": "no", "gpu": gpu, "gpu_ref": gpu_ref_for(gpu),
                "n_gpus": 1, "nodes": 1, "sharding": "none", "offload": "none", "tp": 1, "pp": 1, "cp": 1,
                "usable": "yes", "measured_date": today,
                "ambiguity": "random token ids: every position is a real token (like a packed data set)",
            }
            notes = ["config %s" % os.path.relpath(os.path.abspath(path), repo_root())
                     if os.path.abspath(path).startswith(repo_root() + os.sep) else "config %s" % path,
                     "torch AdamW %s" % args.adamw]
            if c["method"] in ("lora", "qlora"):
                notes.append("LoRA alpha %d dropout 0; adapters as PEFT makes them; bf16 autocast" % (2 * c["rank"]))
            elif c["precision"] == "bf16-mixed":
                notes.append("fp32 weights/grads/AdamW states + bf16 autocast")
            else:
                notes.append("pure bf16 weights/grads/AdamW states")
            if c["method"] == "qlora":
                notes.append("bnb nf4 without double quant; compute bf16")
            if c.get("reentrant"):
                notes.append("gradient checkpointing use_reentrant=True")
            if c.get("compile_blocks"):
                notes.append("torch.compile of every decoder layer (nn.Module.compile), loss eager; "
                             "peak counted after the compiling warm-up step")
            if c.get("varlen"):
                notes.append("variable length: steps of %s tokens per sequence (seq_len = the longest)"
                             % "/".join(str(n) for n in varlen_lengths(c["seq"])))
            if c.get("load") == "upcast":
                notes.append("built in fp32 and cast to bf16 before training; the step's peak is "
                             "counted from after the load (the load moment is the row before)")
            if conf.get("num_local_experts") or conf.get("num_experts"):
                notes.append("MoE: %s experts, top-%s, transformers' per-expert loop" % (
                    conf.get("num_local_experts") or conf.get("num_experts"),
                    conf.get("num_experts_per_tok", "?")))
            if os.environ.get("PYTORCH_CUDA_ALLOC_CONF"):
                notes.append("PYTORCH_CUDA_ALLOC_CONF=" + os.environ["PYTORCH_CUDA_ALLOC_CONF"])

            rows = []
            if err == "oom":
                n_oom += 1
                rows.append(dict(base, outcome="oom", notes="; ".join(notes + ["CUDA out of memory"])))
                print("         -> OOM", flush=True)
            elif err:
                print("         -> error, no row: %s" % err, flush=True)
                n_skip += 1
            else:
                n_done += 1
                tok_s = res["tokens_per_step"] / res["step_s"]
                extra = ["%d timed steps after %d warm-up" % (res["n_timed"], args.warmup),
                         "trainable params %d" % res["trainable"],
                         "allocated before build %d bytes" % res["base_alloc"],
                         "build %.1f s" % res["build_s"], "last loss %.3f" % res["loss"]]
                extra.append("peak allocated at load %.1f MiB" % (res["load_alloc"] / BYTES_PER_MIB))
                if res["reserved_curve"]:
                    extra.append("reserved after each step (MiB): %s" % "/".join(
                        "%.0f" % (v / BYTES_PER_MIB) for v in res["reserved_curve"]))
                if c.get("load"):
                    # the load moment as a row of its own; not scored (no load-moment model yet)
                    rows.append(dict(base, memory_value="%.1f" % (res["load_alloc"] / BYTES_PER_MIB),
                                     memory_unit="MiB", memory_kind="allocated", outcome="measured",
                                     usable="no",
                                     ambiguity="the load moment (fp32 build, then cast), not a training "
                                               "step: gpuplan does not model it yet",
                                     notes="; ".join(notes + ["moment: load", "reserved at load %.1f MiB"
                                                              % (res["load_reserved"] / BYTES_PER_MIB)])))
                alloc_id = row_n + len(rows) + 1
                rows.append(dict(base, memory_value="%.1f" % (res["alloc"] / BYTES_PER_MIB), memory_unit="MiB",
                                 memory_kind="allocated", outcome="measured",
                                 tokens_per_s_per_gpu="%.1f" % tok_s, throughput_kind="measured",
                                 step_time_s="%.4f" % res["step_s"], notes="; ".join(notes + extra)))
                rows.append(dict(base, memory_value="%.1f" % (res["reserved"] / BYTES_PER_MIB), memory_unit="MiB",
                                 memory_kind="reserved", outcome="measured",
                                 notes="; ".join(notes + ["same run as GPU-%d (throughput there)" % alloc_id])))
                print("         -> alloc %.0f MiB reserved %.0f MiB step %.3f s %.0f tok/s" % (
                    res["alloc"] / BYTES_PER_MIB, res["reserved"] / BYTES_PER_MIB, res["step_s"], tok_s), flush=True)
            for r in rows:
                row_n += 1
                r["row_id"] = "GPU-%d" % row_n
                w.writerow([csv_field(r.get(k, "")) for k in COLUMNS])
            f.flush()
    runner.cleanup()
    print("done in %.0f s: %d measured, %d OOM, %d skipped or failed; %d rows -> %s" % (
        time.time() - start, n_done, n_oom, n_skip, row_n, args.out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
