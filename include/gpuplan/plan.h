/*
 * plan.h - the planner (`gpuplan recommend`): which GPU server to fine-tune or
 * serve a model on, what it costs, and how to launch it.
 *
 * gpuplan_plan_run() searches every catalog GPU x platform x GPUs per node x
 * nodes x sharding x micro-batch x checkpointing x offload (x method and
 * precision where the request leaves them open). A serving request (method
 * infer) is the serving search (plan_serve.c): GPU x GPUs per replica (TP
 * inside a server, PP across, EP for MoE) x weight and KV format x
 * replicas, with the engines' start-up accounting and continuous batching
 * in steady state (serving.h), against latency targets at a request rate or
 * a concurrency, ranked by cost per million output tokens. The model-dependent work (memory
 * profile, throughput profile) is done once per method/LoRA setting; each candidate is then two
 * closed-form, allocation-free evaluations (gpuplan_memory_eval, gpuplan_throughput_eval).
 * Candidates that fit with headroom and meet the constraints (deadline,
 * budget, GPU count, vendor, per-user decode rate) are ranked by the
 * objective. The result holds the top K (the best knob setting of each
 * hardware layout, so the list is diverse), the time-vs-cost Pareto set, a
 * whole-server spec, and reasons and warnings in words.
 *
 * The renderers (render.h) write a result as text or JSON
 * (gpuplan_render_plan) and one plan's launch configuration, DeepSpeed JSON,
 * accelerate YAML, torchrun command or Slurm script (gpuplan_emit).
 *
 * Derivations and assumptions: src/lib/plan/ (plan_search.c, plan_server.c) and
 * docs/planner.md.
 * Not here: the memory and time formulas (estimate.h, throughput.h), prices
 * (cost.h).
 */
#ifndef GPUPLAN_PLAN_H
#define GPUPLAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/buf.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/error.h"
#include "gpuplan/estimate.h"
#include "gpuplan/job.h"
#include "gpuplan/model.h"
#include "gpuplan/serving.h"

enum gpuplan_plan_objective {
    GPUPLAN_OBJECTIVE_COST = 0, /* cloud cost of the run (training) or per hour (serving);
                                   on-prem: the own cost (TCO share) of the same */
    GPUPLAN_OBJECTIVE_TIME,     /* fastest run, or highest decode throughput */
    GPUPLAN_OBJECTIVE_GPUS,     /* fewest GPUs, then cost */
    GPUPLAN_OBJECTIVE_CAPEX,    /* cheapest server to buy, then time */
    GPUPLAN_OBJECTIVE_COUNT
};

enum gpuplan_plan_where {
    GPUPLAN_WHERE_ANY = 0, /* rank by the objective; both prices shown */
    GPUPLAN_WHERE_ON_PREM, /* buy: GPU counts as the platforms sell them; needs a GPU price */
    GPUPLAN_WHERE_CLOUD,   /* rent: any 1/2/4/8 slice of a platform; needs a cloud rate */
    GPUPLAN_WHERE_COUNT
};

/*
 * What a plan may assume beyond the standard stack (seed S13: PyTorch + PEFT +
 * Accelerate/DeepSpeed/FSDP on CUDA, bf16-mixed or the method's own recipe).
 * Left open the search keeps to the standard stack; `--allow fp8,rocm,...`
 * widens it, and a plan that uses one of these says so (its maturity).
 */
enum gpuplan_plan_allow {
    GPUPLAN_ALLOW_FP8 = 1u << 0,     /* FP8 training (Transformer Engine / torchao recipes) */
    GPUPLAN_ALLOW_ROCM = 1u << 1,    /* AMD Instinct on ROCm (bitsandbytes on ROCm for QLoRA) */
    GPUPLAN_ALLOW_GAUDI = 1u << 2,   /* Intel Gaudi (optimum-habana, the HPU backends) */
    GPUPLAN_ALLOW_GEFORCE = 1u << 3, /* GeForce in a rack server or a cloud (licence) */
    GPUPLAN_ALLOW_LEGACY = 1u << 4,  /* NVIDIA below compute capability 8.0: no bf16, no FA2 */
    GPUPLAN_ALLOW_ALL = 0x1Fu
};

/* Vendor filter: a gpuplan_vendor value, or this for any vendor. */
#define GPUPLAN_PLAN_ANY_VENDOR   (-1)
#define GPUPLAN_PLAN_MAX_GPU_IDS  16
#define GPUPLAN_PLAN_MAX_TOP      16
#define GPUPLAN_PLAN_MAX_PARETO   24
#define GPUPLAN_PLAN_MAX_REASONS  8
#define GPUPLAN_PLAN_MAX_WARNINGS 10
#define GPUPLAN_PLAN_TEXT_MAX     320
#define GPUPLAN_PLAN_MAX_NOTES    14
#define GPUPLAN_PLAN_MAX_MISSES   3
/* --max-gpus at most: the search's 256 servers of 4 or 128 of 8 (plan_search.c node_counts) */
#define GPUPLAN_PLAN_MAX_GPUS 1024

struct gpuplan_plan_request {
    struct gpuplan_job job; /* method, precision, seq_len, tokens, context, batch, ... */
    /* which job knobs the user fixed; the others are searched */
    bool method_fixed;
    bool precision_fixed;
    bool micro_batch_fixed;
    bool grad_ckpt_fixed; /* also job.grad_ckpt_set */
    bool sharding_fixed;  /* also job.sharding_set */
    bool offload_fixed;
    bool weights_fixed; /* serving: --weights-dtype */
    bool kv_fixed;      /* serving: --kv-dtype */
    /* constraints */
    double deadline_hours; /* 0 = none; needs job.tokens */
    double budget_usd;     /* 0 = none; cloud run cost (cloud/any) or capex (on-prem) */
    enum gpuplan_plan_where where;
    uint32_t max_gpus;                          /* all GPUs of a plan at most, e.g. 64 */
    int vendor;                                 /* GPUPLAN_PLAN_ANY_VENDOR or a vendor */
    char gpu_ids[GPUPLAN_PLAN_MAX_GPU_IDS][48]; /* --gpu a,b: only these */
    size_t n_gpu_ids;                           /* 0 = every catalog GPU */
    double min_headroom_fraction;               /* of usable memory, e.g. 0.05 */
    uint32_t allow;       /* enum gpuplan_plan_allow bits: what beyond the standard stack */
    bool budget_given;    /* --budget given (0 is then a usage error) */
    double max_run_days;  /* without a deadline, runs longer than this are not recommended */
    double hours_per_day; /* on-prem: the stated use; 0 = none (rank by capex, no own cost) */
    /* serving (--method infer): the load beside job.input_tokens / output_tokens /
     * concurrency, and the latency targets; 0 = none */
    double request_rate_per_s; /* requests/s all replicas sustain; 0: job.concurrency in flight */
    double target_ttft_ms;     /* time to first token at most, e.g. 1000 */
    double target_tpot_ms;     /* time per output token at most, e.g. 50 */
    enum gpuplan_plan_objective objective;
    uint32_t top_k; /* 1..GPUPLAN_PLAN_MAX_TOP */
};

/*
 * The planner's own options (options.h), terminated by name NULL: the
 * constraints and the objective above, --gpu a,b, and the serving targets
 * (--request-rate, --ttft-ms, --tpot-ms). `gpuplan recommend` and POST
 * /v1/recommend read them next to gpuplan_job_options (whose
 * --input-tokens, --output-tokens and --concurrency give the serving load),
 * whose GPUPLAN_OPTION_SEARCHED entries they refuse.
 */
extern const struct gpuplan_option gpuplan_plan_options[];

/* The defaults of gpuplan_plan_options; job from gpuplan_job_init(). */
void gpuplan_plan_request_init(struct gpuplan_plan_request *req);

/*
 * The user gave `job_option` (an entry of gpuplan_job_options): mark the
 * knob its axis fixes so the search keeps it. Options that fix no knob are
 * ignored. The CLI and the HTTP reader both call this.
 */
void gpuplan_plan_request_mark_fixed(struct gpuplan_plan_request *req,
                                     const struct gpuplan_option *job_option);

/* Whole-server spec of a plan (per server unless the name says otherwise). */
struct gpuplan_plan_server {
    char platform_id[48];   /* e.g. "hgx-h100-8"; "" when the GPU lists no platform */
    char platform_name[96]; /* e.g. "NVIDIA HGX/DGX H100/H200 8-GPU (SXM5)" */
    char form_factor[16];   /* "sxm", "oam", "pcie", "superchip", "workstation" */
    uint32_t n_servers;     /* = nodes */
    uint32_t cpu_cores;     /* per server, e.g. 64 */
    uint64_t ram_bytes;     /* per server, e.g. 1 TiB */
    uint64_t nvme_bytes;    /* per server */
    double nvme_gb_per_s;   /* sequential read of the NVMe set, per server */
    char
        interconnect[96]; /* GPU-to-GPU inside the server, e.g. "NVLink 4 via NVSwitch, 900 GB/s" */
    char network[128];    /* between servers, or "none (single server)" */
    double power_w;       /* per server at load: GPUs at TDP + platform */
    double rack_power_w;  /* the plan's servers that share one rack */
};

/*
 * A serving plan (method infer): the engine, one replica's layout and
 * flags, the load and what the plan achieves at it, the disaggregated
 * prefill/decode comparison, and the verify artifact. Everything an engine
 * launch line needs is here (commands.launch spells it out).
 */
struct gpuplan_plan_serving {
    enum gpuplan_serving_engine engine;
    char engine_version[32]; /* as resolved, e.g. "0.27.0" */
    char model_ref[200];     /* what the launch line serves: the Hub id, else the model's id */
    uint32_t tp, pp, ep;     /* one replica, e.g. tp 4 */
    uint32_t gpus_per_replica;
    uint32_t replicas;               /* all of the plan's, e.g. 6 */
    uint64_t max_model_len;          /* --max-model-len as the engine starts */
    uint32_t max_num_seqs;           /* --max-num-seqs (SGLang --max-running-requests) */
    uint64_t max_num_batched_tokens; /* --max-num-batched-tokens (SGLang --chunked-prefill-size) */
    double memory_fraction; /* --gpu-memory-utilization (SGLang --mem-fraction-static), as used */
    enum gpuplan_serving_kv_dtype kv_dtype; /* --kv-cache-dtype as asked (auto) */
    enum gpuplan_dtype kv_element;          /* as resolved: BF16, F16, F32 or F8_E4M3 */
    enum gpuplan_dtype weights_dtype;       /* as loaded; UNKNOWN = as the checkpoint stores */
    bool enforce_eager;
    uint64_t kv_capacity_tokens; /* one replica's pool, as the engine prints it */
    double max_concurrency;      /* requests of max_model_len the pool holds */
    uint64_t weights_bytes;      /* per GPU as loaded */
    /* the load and what the plan achieves at it (per replica unless the name says so) */
    uint64_t input_tokens, output_tokens;
    double request_rate_per_s;  /* all replicas: the target, or what the concurrency gives */
    uint64_t concurrency;       /* in flight per replica at that rate */
    uint64_t concurrency_limit; /* the most in flight per replica that still meets the targets */
    double ttft_s;
    double tpot_s;
    double tokens_per_s;         /* output tokens/s, all replicas */
    double tokens_per_s_per_gpu; /* over every GPU of the plan */
    double tokens_per_s_per_user;
    bool meets_targets; /* false for the nearest misses */
    /* disaggregated prefill/decode on replicas of the same layout, at the same rate */
    bool has_disagg;
    bool disagg_meets_targets;
    uint32_t disagg_prefill_replicas, disagg_decode_replicas;
    double disagg_ttft_s, disagg_tpot_s;
    double disagg_usd_per_hour; /* rent, or own cost on-prem, as the plan's cost */
    double disagg_saving;       /* 1 - disaggregated / aggregated cost; < 0 costs more */
    struct gpuplan_serving_commands commands; /* launch line and benchmark, one replica */
    char miss[GPUPLAN_PLAN_TEXT_MAX];         /* a near miss: what it fails, e.g. "TPOT 61 ms" */
};

/* One evaluated plan. Pointers are borrowed from the catalog the run used. */
struct gpuplan_plan {
    const struct gpuplan_gpu *gpu;           /* borrowed */
    const struct gpuplan_platform *platform; /* borrowed; may be NULL */
    char model_id[128];
    char model_family[32];  /* e.g. "llama" (FSDP wrap class in emitters) */
    char hub_id[200];       /* Hugging Face Hub id ("meta-llama/Llama-3.1-70B") or the model's
                               path; "" when neither is known (emitters that need one refuse) */
    struct gpuplan_job job; /* the resolved job: method, precision, sharding, ... */
    uint32_t gpus_per_node;
    uint32_t nodes;
    uint64_t memory_per_gpu_bytes; /* device total (what nvidia-smi shows) */
    uint64_t usable_bytes;         /* per GPU */
    int64_t headroom_bytes;
    uint64_t host_ram_needed_bytes; /* per server: memory model + checkpoint loading, before the S11
                                       floor */
    bool fits;
    /* training: the 80 % range of the device total per GPU (intervals.c, the estimate's
     * ranges) and its verdict. A MAY NOT FIT plan (the top of the range over the usable
     * memory) ranks after every plan whose whole range fits (docs/planner.md) */
    bool has_range;
    enum gpuplan_fit_verdict range_verdict;
    uint64_t memory_low_bytes, memory_high_bytes; /* device total per GPU, range ends */
    int64_t range_over_bytes;                     /* MAY NOT FIT: top of the range - usable */
    double tokens_per_s;          /* training: all GPUs; serving: output tokens, all replicas */
    double tokens_per_s_per_user; /* serving: 1 / TPOT at the load; 0 for training */
    double ttft_s;                /* serving: time to first token at the load */
    double mfu;
    const char *bottleneck; /* static string */
    bool has_time;          /* job.tokens > 0 (training) */
    double time_hours;
    bool has_cloud_rate;
    double cost_usd_per_hour; /* all GPUs, at the rate of cloud_tier */
    char cloud_tier[16];      /* the rate's tier, e.g. "specialty"; "" without a rate */
    char cloud_provider[64];  /* the rate's provider, e.g. "RunPod Secure Cloud" */
    bool rate_fallback;       /* no rate at the asked tier (request.job.cloud_tier): another's;
                                 such a plan is never ranked first by cost */
    double cost_usd;          /* training: the cloud run (has_time and has_cloud_rate) */
    bool has_capex;
    double capex_usd;           /* own servers: GPUs + platforms + RAM + NVMe + network */
    struct gpuplan_capex capex; /* its lines (cost.h), has_capex */
    double cost_per_mtok_usd;   /* cloud USD per million tokens processed (ranking key) */
    /* Owning (has_own_cost: has_capex and the TCO model ran): the TCO's monthly own cost
     * (depreciation + energy + maintenance + colocation, `gpuplan tco` defaults) per hour of
     * use, and this run's share of it. On-prem, the cost objective ranks by these. */
    bool has_own_cost;
    double own_usd_per_hour;      /* all the plan's servers, per hour of use */
    double own_cost_usd;          /* training with has_time: own_usd_per_hour * time_hours */
    double own_cost_per_mtok_usd; /* own USD per million tokens processed */
    bool compromise; /* offload or lossy 4-bit serving weights the user did not ask for: ranked
                        after plans without (docs/planner.md) */
    struct gpuplan_plan_server server;
    /* maturity: standard stack (S13), or what it needs care with ("" when standard) */
    bool needs_care;
    char maturity[GPUPLAN_PLAN_TEXT_MAX];
    /* the other GPU counts of the same GPU that meet the constraints, folded into this row,
     * e.g. "also 16 GPUs (2x8): 0.9 h, $27" ("" when none) */
    char variants[GPUPLAN_PLAN_TEXT_MAX];
    bool is_serving; /* a serving plan: `serving` holds it */
    struct gpuplan_plan_serving serving;
    char reasons[GPUPLAN_PLAN_MAX_REASONS][GPUPLAN_PLAN_TEXT_MAX];
    size_t n_reasons;
    char warnings[GPUPLAN_PLAN_MAX_WARNINGS][GPUPLAN_PLAN_TEXT_MAX];
    size_t n_warnings;
};

struct gpuplan_plan_result {
    struct gpuplan_plan_request request; /* as run (copy) */
    char model_id[128];                  /* the model planned for, e.g. "llama-3.1-70b" */
    uint64_t evaluated;                  /* candidates evaluated (memory model runs) */
    uint64_t fitting;                    /* fit with headroom */
    uint64_t feasible;                   /* + met every constraint */
    /* fitting candidates rejected because the server cannot hold what they need per server */
    uint64_t over_ram;      /* host RAM above the platform's maximum */
    uint64_t over_cores;    /* CPU cores (data loading) above the platform's maximum */
    uint64_t over_nvme;     /* NVMe above the platform's bays x the largest drive */
    uint64_t network_bound; /* multi-server, > 4/5 of each step waiting on the network */
    struct gpuplan_plan top[GPUPLAN_PLAN_MAX_TOP];
    size_t n_top;
    struct gpuplan_plan pareto[GPUPLAN_PLAN_MAX_PARETO]; /* by time, ascending */
    size_t n_pareto;
    /* when no plan meets the constraints, the nearest misses: serving, what fails the latency
     * targets (serving.miss); training, the cheapest that meets the deadline and the fastest
     * within the budget (each plan's `variants` says what it misses) */
    struct gpuplan_plan misses[GPUPLAN_PLAN_MAX_MISSES];
    size_t n_misses;
    /* where neither --on-prem nor --cloud: the best plan to buy (capex, then time) and to rent
     * (cloud cost of the run), side by side */
    bool has_best_buy, has_best_rent;
    struct gpuplan_plan best_buy, best_rent;
    uint64_t too_long;   /* feasible but longer than --max-run-days (no deadline given) */
    uint64_t needs_care; /* dropped: beyond the standard stack and not --allow'ed */
    char notes[GPUPLAN_PLAN_MAX_NOTES][GPUPLAN_PLAN_TEXT_MAX]; /* run-level: why plans were
                                  dropped, ranking basis, trade-offs, S14 hints */
    size_t n_notes;
};

/*
 * Run the search. `out` is caller-owned (about 300 KB: allocate it on the
 * heap) and fully written. No plan found is a result (n_top 0, notes say
 * why), not an error. Errors: GPUPLAN_ERR_USAGE (bad request: top_k 0,
 * deadline without tokens, unknown --gpu id with "did you mean"),
 * GPUPLAN_ERR_INVALID_CONFIG (the model lacks what the profiles need).
 */
enum gpuplan_status gpuplan_plan_run(const struct gpuplan_model *model,
                                     const struct gpuplan_catalog *catalog,
                                     const struct gpuplan_plan_request *req,
                                     struct gpuplan_plan_result *out,
                                     struct gpuplan_error *err);

/*
 * The latency-throughput curve of one replica of a serving plan (for the
 * proposal's picture): continuous batching in steady state
 * (gpuplan_serving_steady_state) at 1, 2, 4, ... requests in flight up to
 * what the KV pool and max_num_seqs hold, with the plan's operating point
 * and its concurrency limit among the points, sorted by concurrency. The
 * same engine settings, lengths and GPU as the plan (its resolved job).
 * Fills out[0..*n) (at most cap). Errors: GPUPLAN_ERR_USAGE for a plan that
 * is not a serving plan or cap 0; those of gpuplan_serving_profile_build().
 */
struct gpuplan_plan_curve_point {
    uint64_t concurrency;        /* requests in flight per replica, as run (the pool caps it) */
    double tokens_per_s_per_gpu; /* output tokens/s of the replica over its GPUs */
    double ttft_s, tpot_s;
    bool is_operating; /* the plan's operating point */
    bool is_limit;     /* the most in flight that still meets the targets */
};
#define GPUPLAN_PLAN_CURVE_MAX 24 /* 2^0..2^14 (past any pool) + the two marked points */

enum gpuplan_status gpuplan_plan_serving_curve(const struct gpuplan_model *model,
                                               const struct gpuplan_plan *plan,
                                               struct gpuplan_plan_curve_point *out,
                                               size_t cap,
                                               size_t *n,
                                               struct gpuplan_error *err);

const char *gpuplan_plan_objective_name(enum gpuplan_plan_objective objective);
const char *gpuplan_plan_where_name(enum gpuplan_plan_where where);

#endif
