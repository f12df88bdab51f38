/*
 * render.h - every renderer: results, catalog listings and launch
 * configurations into a caller's buffer.
 *
 * Renderers live in the library so the CLI and the HTTP service emit
 * byte-identical output. Each one formats a result the layers below
 * computed (it computes nothing), appends to `out` (see buf.h) and returns
 * GPUPLAN_OK or the buffer's sticky failure. Output is deterministic: no
 * locale, fixed number formats, JSON keys sorted.
 *
 * Each renderer declares the formats it writes (GPUPLAN_RENDER_*_FORMATS);
 * asked for another it returns GPUPLAN_ERR_USAGE, and the command-line and
 * HTTP front-ends refuse that format before anything runs. Adding a format
 * to a command is one bit in its mask here (and the writer behind it).
 */
#ifndef GPUPLAN_RENDER_H
#define GPUPLAN_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/buf.h"
#include "gpuplan/error.h"

enum gpuplan_format {
    GPUPLAN_FORMAT_TEXT, /* aligned table for a terminal */
    GPUPLAN_FORMAT_JSON, /* {"schema_version":1, ...}, 2-space indent, sorted keys */
    GPUPLAN_FORMAT_CSV,  /* RFC 4180, header row first */
    GPUPLAN_FORMAT_MD,   /* GitHub-flavoured Markdown table */
    GPUPLAN_FORMAT_HTML, /* a <table> fragment */
    GPUPLAN_FORMAT_COUNT
};

/* A set of formats: bit GPUPLAN_FORMAT_BIT(f) for each format f. */
#define GPUPLAN_FORMAT_BIT(f) (1u << (f))

/* What each renderer writes. */
#define GPUPLAN_RENDER_GPUS_FORMATS                                                      \
    (GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_TEXT) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_JSON) | \
     GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_CSV) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_MD) |    \
     GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_HTML))
#define GPUPLAN_RENDER_MODELS_FORMATS    GPUPLAN_RENDER_GPUS_FORMATS
#define GPUPLAN_RENDER_PLATFORMS_FORMATS GPUPLAN_RENDER_GPUS_FORMATS
#define GPUPLAN_RENDER_INSPECT_FORMATS \
    (GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_TEXT) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_JSON))
#define GPUPLAN_RENDER_ESTIMATE_FORMATS                                                  \
    (GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_TEXT) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_JSON) | \
     GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_CSV))
#define GPUPLAN_RENDER_PLAN_FORMATS                                                      \
    (GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_TEXT) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_JSON) | \
     GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_CSV))
/* `gpuplan check`: the changes in the file's vocabulary are text or JSON. */
#define GPUPLAN_RENDER_CHECK_FORMATS \
    (GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_TEXT) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_JSON))
#define GPUPLAN_RENDER_TCO_FORMATS                                                       \
    (GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_TEXT) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_JSON) | \
     GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_HTML))
#define GPUPLAN_RENDER_DETECT_FORMATS \
    (GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_TEXT) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_JSON))

/*
 * Format names, indexed by enum gpuplan_format ("text", "json", "csv", "md",
 * "html"), then the alias "markdown" (= md); NULL-terminated. The values of
 * the names, in the same order, are gpuplan_format_values.
 */
extern const char *const gpuplan_format_names[];
extern const int gpuplan_format_values[];

/* "text", "json", ...; "unknown" out of range. */
const char *gpuplan_format_name(enum gpuplan_format format);

/*
 * A name of gpuplan_format_names that `allowed` (a GPUPLAN_FORMAT_BIT set)
 * contains; otherwise GPUPLAN_ERR_USAGE "'--format' is 'x'; must be one of
 * text|json" listing the allowed ones.
 */
enum gpuplan_status gpuplan_format_parse(const char *name,
                                         unsigned allowed,
                                         enum gpuplan_format *out,
                                         struct gpuplan_error *err);

/* GPUPLAN_OK when `allowed` holds `format`, else the GPUPLAN_ERR_USAGE of gpuplan_format_parse. */
enum gpuplan_status
gpuplan_format_check(enum gpuplan_format format, unsigned allowed, struct gpuplan_error *err);

/* ---- the catalog (render_catalog.c) ---- */

struct gpuplan_catalog;

/*
 * The GPU catalog, one row per GPU with its source. JSON carries every field
 * with units in the key names: {"schema_version":1,"gpus":[...]}.
 */
enum gpuplan_status gpuplan_render_gpus(const struct gpuplan_catalog *catalog,
                                        enum gpuplan_format format,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err);

/* The model catalog; JSON: {"schema_version":1,"models":[...]} with each config object. */
/*
 * `gpuplan platforms`: the servers as sold (GPU counts, CPU, base RAM and
 * NVMe, network, power, chassis price) and the parts that price capex
 * beyond the base. JSON: {"platforms": [...], "parts": [...]}.
 */
enum gpuplan_status gpuplan_render_platforms(const struct gpuplan_catalog *catalog,
                                             enum gpuplan_format format,
                                             struct gpuplan_buf *out,
                                             struct gpuplan_error *err);
enum gpuplan_status gpuplan_render_models(const struct gpuplan_catalog *catalog,
                                          enum gpuplan_format format,
                                          struct gpuplan_buf *out,
                                          struct gpuplan_error *err);

/* ---- a model's tensor inventory (render_inspect.c) ---- */

struct gpuplan_model;

/*
 * `gpuplan inspect`. Text: architecture, parameter totals, a by-role
 * breakdown, bytes by dtype and bits per weight. JSON (schema_version 1,
 * sorted keys; the contract other tools rely on): parameters.{total,
 * active, by_role}, architecture.{family, layers, hidden_size, heads,
 * kv_heads, head_dim, intermediate_size, vocab_size, experts,
 * experts_per_token}, storage.{bytes, by_dtype, bits_per_weight}.
 */
enum gpuplan_status gpuplan_render_inspect(const struct gpuplan_model *model,
                                           enum gpuplan_format format,
                                           struct gpuplan_buf *out,
                                           struct gpuplan_error *err);

/* ---- this machine's GPUs (render_detect.c) ---- */

struct gpuplan_detect_result;

/*
 * `gpuplan detect`. JSON (schema_version 1, sorted keys): gpus[] with
 * vendor, name, memory_total_bytes, memory_free_bytes, compute_capability,
 * gfx_target, nvlink_active_links, pcie_gen, pcie_width, power_limit_w,
 * catalog_id, ...; unknown values are null; and a `driver` object.
 */
enum gpuplan_status gpuplan_render_detect(const struct gpuplan_detect_result *result,
                                          enum gpuplan_format format,
                                          struct gpuplan_buf *out,
                                          struct gpuplan_error *err);

/* ---- memory estimate (render_estimate.c) ---- */

struct gpuplan_estimate;

/*
 * `gpuplan estimate`: the job, a per-GPU breakdown table, host RAM, the
 * verdict with headroom against usable memory, and suggestions. JSON (sorted
 * keys): {"schema_version":1, "model", "job":{...}, "gpu", "n_gpus",
 * "memory":{"per_gpu":{weights_bytes, gradients_bytes, optimizer_bytes,
 * activations_bytes, adapters_bytes, kv_cache_bytes, overhead_bytes,
 * cuda_context_bytes, peak_allocated_bytes, peak_reserved_bytes,
 * device_total_bytes}, "host":{"ram_bytes"}}, "fits" (absent without a GPU),
 * "headroom_bytes", "usable_bytes", "suggestions":[{change, saving_bytes,
 * fits}]}. With a GPU also "throughput" {tokens_per_s_per_gpu, tokens_per_s,
 * step_time_s, mfu, bottleneck, compute_s, memory_s, comm_s, offload_s,
 * flops_per_token, efficiency, achieved_tflops, ...; for inference ttft_s,
 * decode_tokens_per_s, decode_tokens_per_s_per_seq, prefill_tokens_per_s},
 * "time" {train_hours, train_tokens} (null when no --tokens) and
 * "cost":{cloud_usd, gpu_hours, usd_per_gpu_hour, n_gpus[,
 * usd_per_million_tokens]} (null when unknown), or "throughput_error" when
 * the time model cannot evaluate the job (docs/formulas-time-cost.md).
 * The value comes from gpuplan_estimate_run() (estimate.h).
 */
enum gpuplan_status gpuplan_render_estimate(const struct gpuplan_estimate *estimate,
                                            enum gpuplan_format format,
                                            struct gpuplan_buf *out,
                                            struct gpuplan_error *err);

struct gpuplan_config;

/*
 * The estimate of a job read from config files (config.h): text adds the
 * files' unknown keys, the framework defaults taken and what could not be
 * expressed; JSON adds "config" {kind, stack, files, model, notes[{kind,
 * key, where, setting, value, detail}]}. With `check` (gpuplan check), also
 * the suggestions in the file's own vocabulary: text "to fit, change in
 * ...", JSON "changes"[{option, change, in_file, saving_bytes, fits}].
 * `config` NULL is gpuplan_render_estimate.
 */
enum gpuplan_status gpuplan_render_estimate_from(const struct gpuplan_estimate *estimate,
                                                 const struct gpuplan_config *config,
                                                 bool check,
                                                 enum gpuplan_format format,
                                                 struct gpuplan_buf *out,
                                                 struct gpuplan_error *err);

/* ---- the planner's result (render_plan.c) ---- */

struct gpuplan_plan_result;

/*
 * Text: one table row per recommendation, then each plan's server, reasons
 * and warnings, then the Pareto set. JSON (sorted keys, 2-space indent):
 * {"schema_version":1, "model", "objective", "where", "evaluated", "fitting",
 * "feasible", "rejected":{host_ram, cpu_cores, nvme, network_bound},
 * "recommendations":[{gpu, gpus_per_node, nodes, method,
 * precision, sharding, micro_batch, grad_accum, grad_ckpt, offload,
 * memory_per_gpu_bytes, usable_bytes, headroom_bytes, fits, tokens_per_s,
 * time_hours (null), cost_usd (null), cost_usd_per_hour (null), capex_usd
 * (null), own_usd_per_hour (null), own_cost_usd (null), own_cost_per_mtok_usd
 * (null), compromise, server:{platform, platform_name, form_factor, cpu_cores,
 * ram_bytes, nvme_bytes, nvme_gb_per_s, interconnect, network, power_w,
 * rack_power_w, servers}, reasons[], warnings[]}], "pareto":[same],
 * "notes":[]}. Serving plans add weights_dtype, kv_dtype, ttft_s,
 * tokens_per_s_per_user.
 */
enum gpuplan_status gpuplan_render_plan(const struct gpuplan_plan_result *result,
                                        enum gpuplan_format format,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err);

/* The plans for a job read from config files: as gpuplan_render_estimate_from adds them. */
enum gpuplan_status gpuplan_render_plan_from(const struct gpuplan_plan_result *result,
                                             const struct gpuplan_config *config,
                                             enum gpuplan_format format,
                                             struct gpuplan_buf *out,
                                             struct gpuplan_error *err);

/* ---- launch configurations (emit*.c) ---- */

struct gpuplan_plan;
struct gpuplan_job;

/*
 * What `recommend --emit KIND` and `gpuplan emit KIND` write for one plan.
 * Training: the engine's own config file or launch line; serving: the
 * engine's launch line; cluster: a manifest that runs the training launch or
 * the vLLM server. docs/emit.md lists, per kind, the keys written, what each
 * engine really keeps for each precision setting (cited from its code) and
 * what is refused.
 */
enum gpuplan_engine {
    GPUPLAN_ENGINE_DEEPSPEED = 0, /* DeepSpeed config JSON (ZeRO 1-3, offload, precision) */
    GPUPLAN_ENGINE_ACCELERATE,    /* accelerate config YAML (FSDP, DeepSpeed plugin, DDP) */
    GPUPLAN_ENGINE_TORCHRUN,      /* torchrun command line (run on every node) */
    GPUPLAN_ENGINE_SLURM,         /* sbatch script: srun torchrun on every node */
    GPUPLAN_ENGINE_AXOLOTL,       /* axolotl config YAML */
    GPUPLAN_ENGINE_LLAMA_FACTORY, /* LLaMA-Factory `llamafactory-cli train` YAML */
    GPUPLAN_ENGINE_TORCHTUNE,     /* torchtune recipe config YAML */
    GPUPLAN_ENGINE_TRL,      /* {"model", "sft_config", "lora_config"}: SFTConfig + LoraConfig */
    GPUPLAN_ENGINE_VLLM,     /* `vllm serve` command line */
    GPUPLAN_ENGINE_SGLANG,   /* `python -m sglang.launch_server` command line */
    GPUPLAN_ENGINE_K8S,      /* Kubernetes: Kubeflow PyTorchJob, or vLLM Deployment + Service */
    GPUPLAN_ENGINE_SKYPILOT, /* SkyPilot task YAML */
    GPUPLAN_ENGINE_COUNT
};

/* The kinds' names, indexed by the engine ("deepspeed", ..., "skypilot"); NULL-terminated. */
extern const char *const gpuplan_engine_names[];

/* A name of gpuplan_engine_names; GPUPLAN_ERR_USAGE ("did you mean") otherwise. */
enum gpuplan_status
gpuplan_engine_parse(const char *name, enum gpuplan_engine *out, struct gpuplan_error *err);
const char *gpuplan_engine_name(enum gpuplan_engine engine);
/* Whether the engine runs serving plans (vllm, sglang), training plans, or both (k8s, skypilot). */
bool gpuplan_engine_serves(enum gpuplan_engine engine);
bool gpuplan_engine_trains(enum gpuplan_engine engine);

/*
 * Whether `engine` can run `plan` as planned: every knob the plan sets has a
 * setting in the engine that keeps what gpuplan's memory model counts
 * (docs/emit.md). GPUPLAN_ERR_UNSUPPORTED with the reason, and a hint naming
 * the kinds that can; GPUPLAN_ERR_USAGE for an empty plan.
 */
enum gpuplan_status gpuplan_emit_check(const struct gpuplan_plan *plan,
                                       enum gpuplan_engine engine,
                                       struct gpuplan_error *err);

/*
 * For a plan `engine` refuses: the job it would run instead, with the
 * sharding, precision, checkpointing and compile settings moved to the
 * nearest ones it has (e.g. DeepSpeed: fsdp -> zero3; torchtune: bf16-mixed
 * -> bf16; HF Trainer: selective -> full recompute). `out` starts as the
 * plan's job. False when no such move makes the engine accept it.
 */
bool gpuplan_emit_nearest(const struct gpuplan_plan *plan,
                          enum gpuplan_engine engine,
                          struct gpuplan_job *out);

/*
 * Append the launch configuration of `plan` to `out`: every value from the
 * plan, never "auto" where the engine needs a number. Errors: those of
 * gpuplan_emit_check; buffer failures.
 */
enum gpuplan_status gpuplan_emit(const struct gpuplan_plan *plan,
                                 enum gpuplan_engine engine,
                                 struct gpuplan_buf *out,
                                 struct gpuplan_error *err);

/* ---- time and money (render_tco.c) ---- */

struct gpuplan_cost_inputs;
struct gpuplan_tco;

/*
 * `gpuplan tco`: the inputs with their origin (catalog, assumption, user),
 * monthly own vs cloud, break-even, and the cumulative cost chart (text: a
 * character plot; HTML: a fragment with an inline SVG). JSON (sorted keys):
 * {"schema_version":1, "gpu", "n_gpus", "n_servers", "inputs":{KEY:{value,
 * unit, origin, note}}, "capex_usd", "monthly_usd":{"own","cloud",
 * "depreciation","energy","maintenance","colocation"}, "break_even_months"
 * (null: never within the period), "break_even_hours_per_day" (null: not
 * even at 24), "cumulative_usd":{"own":[...],"cloud":[...]}}.
 * GPUPLAN_ERR_NOMEM/TOO_LARGE from the buffer.
 */
enum gpuplan_status gpuplan_render_tco(const struct gpuplan_cost_inputs *in,
                                       const struct gpuplan_tco *tco,
                                       enum gpuplan_format format,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err);

/* ---- the customer proposal (render_proposal.c) ---- */

struct gpuplan_model;
struct gpuplan_catalog;

/* The document (md, html), or its charts alone as JSON (json: the web page's pictures). */
#define GPUPLAN_RENDER_PROPOSAL_FORMATS                                                \
    (GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_MD) | GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_HTML) | \
     GPUPLAN_FORMAT_BIT(GPUPLAN_FORMAT_JSON))

struct gpuplan_proposal_options {
    enum gpuplan_format format; /* GPUPLAN_FORMAT_HTML or GPUPLAN_FORMAT_MD */
    const char *lang;    /* the document's language tag ("en", "ru"); its words are gettext's */
    const char *date;    /* "2026-12-01" from the caller's clock, or NULL: no date line */
    const char *version; /* gpuplan's version for the footer, or NULL */
    const char *command; /* the command line (or request) that reproduces it, or NULL */
    double width_px;     /* json: the charts' width (0: 640 px; 240..2000) */
    /* plans side by side: the recommendation and the best of up to max_plans - 1 other GPU
     * types (`--top K`); 0 or more than 6: six (what fits one printed page) */
    uint32_t max_plans;
    /* md: each chart as a standalone SVG file (with its style), under the name the Markdown's
     * image link gives it; the first status not GPUPLAN_OK (with `err` filled) fails the call
     * with that error, after the document is written. NULL: the Markdown links no image
     * (captions only). html ignores it. */
    enum gpuplan_status (*chart_sink)(void *ctx,
                                      const char *file,
                                      const char *svg,
                                      size_t len,
                                      struct gpuplan_error *err);
    void *chart_ctx;
    /* md: before each image file name ("proposal-" gives proposal-memory.svg); NULL: none.
     * At most 64 bytes of A-Z a-z 0-9 . _ - (the caller checks) */
    const char *md_prefix;
};

/*
 * `gpuplan propose` and POST /v1/propose: the document a vendor's engineer
 * hands the customer, built from a plan result (gpuplan_plan_run with the
 * model and catalog it ran on). Self-contained HTML that prints on A4 and
 * Letter (doc.c), or Markdown of the same structure. Page one: the job and
 * its constraints, the recommended server as a bill of materials (GPU,
 * platform, CPU, RAM, NVMe, network; each line priced from the catalog
 * with its date), its power per server and per rack. Then the time and
 * cost of the run, the alternatives (the best plan of each other GPU type
 * found), the charts (memory per GPU as stacked bars with the usable line,
 * time vs cost, own vs cloud cost of the recommended server), the
 * planner's warnings and notes (maturity and risks), the launch
 * configurations the plan runs as planned (collapsed) and the sources of
 * every figure. The memory breakdown of each plan shown and the TCO of the
 * recommended server are evaluated here with the planner's own models
 * (gpuplan_estimate_memory, gpuplan_tco_compute with `gpuplan tco`'s
 * defaults). Words go through GPUPLAN_TR: the language is the process's
 * gettext language (or the thread's catalog, messages.h). GPUPLAN_FORMAT_JSON
 * writes the charts alone, for the web page: {"schema_version":1, "model",
 * "recommended", "charts":{"memory", "time_cost", "buy_rent"}}, each a
 * standalone <svg> (its own style) or null when it cannot be drawn. Errors: GPUPLAN_ERR_USAGE for
 * another format, GPUPLAN_ERR_UNSUPPORTED when the result has no plan, the document builder's and
 * the buffer's.
 */
struct gpuplan_plan_result;
enum gpuplan_status gpuplan_render_proposal(const struct gpuplan_model *model,
                                            const struct gpuplan_catalog *catalog,
                                            const struct gpuplan_plan_result *result,
                                            const struct gpuplan_proposal_options *opts,
                                            struct gpuplan_buf *out,
                                            struct gpuplan_error *err);

/* ---- errors (render_error.c) ---- */

/*
 * Append the JSON error document for a failed request to `buf`:
 *   {"error":{"code":"usage","message":"...","hint":"...","where":"$.seq_len"}}
 * followed by a newline. `code` is gpuplan_status_name(err->code); "hint"
 * and "where" are always present (possibly ""). Strings are JSON-escaped;
 * bytes that are not UTF-8 (a message cut inside a sequence) become U+FFFD.
 * Check the buffer's status afterwards.
 */
void gpuplan_render_error_json(const struct gpuplan_error *err, struct gpuplan_buf *buf);

#endif
