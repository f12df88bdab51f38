/*
 * emit_serve.c - serving launch lines (vLLM, SGLang) and the cluster
 * engines (a Kubernetes manifest, a SkyPilot task).
 *
 * Serving flags come from the plan's job: the Hub id, tensor and pipeline
 * parallel sizes (tp inside a node, pp across nodes: plan_search.c), the
 * context (--max-model-len), the concurrency (--max-num-seqs), the memory
 * fraction, the weight format (--dtype, or --quantization fp8 for online FP8
 * of a 16-bit checkpoint) and the KV cache format. Flag names: vllm
 * engine/arg_utils.py, sglang docs/advanced_features/server_arguments.md
 * (tests/fixtures/engine-keys/vllm-serve.txt, sglang.txt).
 * SGLang's --mem-fraction-static bounds the weights and the KV pool only
 * (activations and CUDA graphs live outside it), a subset of what vLLM's
 * --gpu-memory-utilization bounds; the plan's fraction is therefore a safe
 * static fraction, and --max-total-tokens caps the pool at what the plan
 * sized (concurrency x context).
 * Kubernetes: a Kubeflow Training Operator PyTorchJob (kubeflow.org/v1,
 * pytorch_types.go: the operator sets PET_NNODES, PET_NPROC_PER_NODE,
 * PET_NODE_RANK, PET_MASTER_ADDR/PORT, which torchrun reads) for training,
 * an apps/v1 Deployment and a v1 Service for vLLM. SkyPilot: a task YAML
 * (resources.accelerators NAME:COUNT, num_nodes, run with the SKYPILOT_*
 * variables). Images and the training script are the user's; they are the
 * only placeholders, named in a comment.
 */
#include <stdio.h>
#include <string.h>

#include "gpuplan/catalog.h"
#include "gpuplan/dtype.h"
#include "gpuplan/units.h"
#include "render/emit_internal.h"

/* ---- vLLM and SGLang ---- */

/* The launch line's words (space-separated: the serving commands quote nothing). */
static size_t launch_words(const struct gpuplan_plan *plan, char (*w)[256], size_t max)
{
    const char *p = plan->serving.commands.launch;
    size_t n = 0;
    while (*p && n < max) {
        while (*p == ' ')
            p++;
        const size_t len = strcspn(p, " ");
        if (len == 0)
            break;
        (void)snprintf(w[n++], sizeof w[0], "%.*s", (int)(len < 255 ? len : 255), p);
        p += len;
    }
    return n;
}

#define EMIT_MAX_WORDS 96

void emit_launch_words(const struct gpuplan_plan *plan, const char *sep, struct gpuplan_buf *out)
{
    char w[EMIT_MAX_WORDS][256];
    const size_t n = launch_words(plan, w, EMIT_MAX_WORDS);
    for (size_t i = 0; i < n; i++)
        gpuplan_buf_printf(out, "%s%s",
                           i == 0                        ? ""
                           : strncmp(w[i], "--", 2) == 0 ? sep
                                                         : " ",
                           w[i]);
}

static void serving_comment(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    const struct gpuplan_plan_serving *sv = &plan->serving;
    gpuplan_buf_printf(out,
                       "# %s: %u replica%s of %u x %s (tp %u, pp %u, ep %u), %s %s; "
                       "%llu in / %llu out: TTFT %.0f ms, TPOT %.1f ms at the planned load\n",
                       plan->model_id, sv->replicas, sv->replicas == 1 ? "" : "s",
                       sv->gpus_per_replica, emit_gpu_id(plan), sv->tp, sv->pp, sv->ep,
                       gpuplan_serving_engine_name(sv->engine), sv->engine_version,
                       (unsigned long long)sv->input_tokens, (unsigned long long)sv->output_tokens,
                       sv->ttft_s * 1e3, sv->tpot_s * 1e3);
    if (sv->replicas > 1)
        gpuplan_buf_printf(out, "# run this on each of the %u replicas, behind a load balancer\n",
                           sv->replicas);
    if (sv->pp > 1)
        gpuplan_buf_puts(out, "# pipeline stages span nodes: start the engine's multi-node "
                              "setup first (vLLM: a Ray cluster)\n");
}

static enum gpuplan_status emit_serving_line(const struct gpuplan_plan *plan,
                                             struct gpuplan_buf *out,
                                             struct gpuplan_error *err)
{
    serving_comment(plan, out);
    emit_launch_words(plan, " \\\n  ", out);
    gpuplan_buf_puts(out, "\n");
    return gpuplan_buf_status(out, err);
}

enum gpuplan_status
emit_vllm(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    return emit_serving_line(plan, out, err);
}

enum gpuplan_status
emit_sglang(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    return emit_serving_line(plan, out, err);
}

/* ---- Kubernetes ---- */

/* A DNS-1123 label from the model id: lowercase letters, digits and '-', at most 40 here. */
static void k8s_name(const char *prefix, const char *id, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = prefix; *p && n + 1 < size; p++)
        out[n++] = *p;
    for (const char *p = id; *p && n + 1 < size && n < 40; p++) {
        const char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out[n++] = c;
        else if (c >= 'A' && c <= 'Z')
            out[n++] = (char)(c - 'A' + 'a');
        else if (n > 0 && out[n - 1] != '-')
            out[n++] = '-';
    }
    while (n > 0 && out[n - 1] == '-')
        n--;
    out[n] = '\0';
}

/* The device plugin's resource name for the plan's GPUs. */
static const char *k8s_gpu_resource(const struct gpuplan_plan *plan)
{
    if (plan->gpu && plan->gpu->vendor == GPUPLAN_VENDOR_AMD)
        return "amd.com/gpu"; /* ROCm k8s-device-plugin */
    if (plan->gpu && plan->gpu->vendor == GPUPLAN_VENDOR_INTEL)
        return "habana.ai/gaudi"; /* Habana device plugin */
    return "nvidia.com/gpu";      /* NVIDIA device plugin */
}

/* A YAML double-quoted string of `s`. */
static void yq(struct gpuplan_buf *out, const char *s)
{
    gpuplan_buf_puts(out, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            gpuplan_buf_printf(out, "\\%c", *s);
        else if (*s == '\n')
            gpuplan_buf_puts(out, "\\n");
        else
            gpuplan_buf_printf(out, "%c", *s);
    }
    gpuplan_buf_puts(out, "\"");
}

static void k8s_resources(const struct gpuplan_plan *plan,
                          uint32_t gpus,
                          const char *indent,
                          struct gpuplan_buf *out)
{
    const unsigned long long ram_gib =
        (unsigned long long)(plan->server.ram_bytes / GPUPLAN_BYTES_PER_GIB);
    gpuplan_buf_printf(out,
                       "%sresources:\n"
                       "%s  limits:\n"
                       "%s    %s: %u\n",
                       indent, indent, indent, k8s_gpu_resource(plan), gpus);
    if (plan->server.cpu_cores)
        gpuplan_buf_printf(out, "%s    cpu: \"%u\"\n", indent, plan->server.cpu_cores);
    if (ram_gib)
        gpuplan_buf_printf(out, "%s    memory: %lluGi\n", indent, ram_gib);
    gpuplan_buf_printf(out,
                       "%svolumeMounts:\n"
                       "%s  - name: dshm\n"
                       "%s    mountPath: /dev/shm\n",
                       indent, indent, indent);
}

static void k8s_replica(const struct gpuplan_plan *plan,
                        const char *role,
                        uint32_t replicas,
                        struct gpuplan_buf *out)
{
    struct gpuplan_buf cmd;
    gpuplan_buf_init(&cmd, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    gpuplan_buf_printf(&cmd, "OMP_NUM_THREADS=%u torchrun ", emit_threads_per_rank(plan));
    emit_train_script(plan, &cmd);
    gpuplan_buf_printf(out,
                       "    %s:\n"
                       "      replicas: %u\n"
                       "      restartPolicy: OnFailure\n"
                       "      template:\n"
                       "        spec:\n"
                       "          containers:\n"
                       "            - name: pytorch\n"
                       "              image: IMAGE   # your training image (train.py in it)\n"
                       "              command: [\"/bin/sh\", \"-c\"]\n"
                       "              args:\n"
                       "                - ",
                       role, replicas);
    yq(out, gpuplan_buf_str(&cmd));
    gpuplan_buf_puts(out, "\n");
    gpuplan_buf_release(&cmd);
    k8s_resources(plan, plan->gpus_per_node, "              ", out);
    gpuplan_buf_puts(out, "          volumes:\n"
                          "            - name: dshm\n"
                          "              emptyDir:\n"
                          "                medium: Memory\n");
}

static enum gpuplan_status
k8s_training(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    char name[64];
    k8s_name("ft-", plan->model_id, name, sizeof name);
    gpuplan_buf_printf(out,
                       "# %s on %u x %s (%u node%s): a Kubeflow PyTorchJob; %s is `gpuplan emit "
                       "deepspeed` (a ConfigMap) when the plan uses ZeRO\n"
                       "apiVersion: kubeflow.org/v1\n"
                       "kind: PyTorchJob\n"
                       "metadata:\n"
                       "  name: %s\n"
                       "spec:\n"
                       "  nprocPerNode: \"%u\"\n"
                       "  pytorchReplicaSpecs:\n",
                       plan->model_id, emit_n_gpus(plan), emit_gpu_id(plan), plan->nodes,
                       plan->nodes == 1 ? "" : "s", EMIT_DS_FILE, name, plan->gpus_per_node);
    k8s_replica(plan, "Master", 1, out);
    if (plan->nodes > 1)
        k8s_replica(plan, "Worker", plan->nodes - 1, out);
    return gpuplan_buf_status(out, err);
}

static enum gpuplan_status
k8s_serving(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    const struct gpuplan_plan_serving *sv = &plan->serving;
    char name[64];
    k8s_name("vllm-", plan->model_id, name, sizeof name);
    gpuplan_buf_printf(out,
                       "# %s: %u replica%s of %u x %s: a vLLM Deployment and its Service\n"
                       "apiVersion: apps/v1\n"
                       "kind: Deployment\n"
                       "metadata:\n"
                       "  name: %s\n"
                       "  labels:\n"
                       "    app: %s\n"
                       "spec:\n"
                       "  replicas: %u\n"
                       "  selector:\n"
                       "    matchLabels:\n"
                       "      app: %s\n"
                       "  template:\n"
                       "    metadata:\n"
                       "      labels:\n"
                       "        app: %s\n"
                       "    spec:\n"
                       "      containers:\n"
                       "        - name: vllm\n"
                       "          image: vllm/vllm-openai:v%s\n",
                       plan->model_id, sv->replicas, sv->replicas == 1 ? "" : "s",
                       sv->gpus_per_replica, emit_gpu_id(plan), name, name, sv->replicas, name,
                       name, sv->engine_version);
    char w[EMIT_MAX_WORDS][256];
    const size_t n = launch_words(plan, w, EMIT_MAX_WORDS);
    /* "vllm serve" is the command; the model and the flags its arguments */
    size_t first = n < 2 ? n : 2;
    gpuplan_buf_puts(out, "          command: [");
    for (size_t i = 0; i < first; i++) {
        gpuplan_buf_puts(out, i ? ", " : "");
        yq(out, w[i]);
    }
    gpuplan_buf_puts(out, "]\n          args:\n");
    for (size_t i = first; i < n; i++) {
        gpuplan_buf_puts(out, "            - ");
        yq(out, w[i]);
        gpuplan_buf_puts(out, "\n");
    }
    gpuplan_buf_printf(out,
                       "          ports:\n"
                       "            - containerPort: %d\n",
                       EMIT_VLLM_PORT);
    k8s_resources(plan, sv->gpus_per_replica, "          ", out);
    gpuplan_buf_printf(out,
                       "      volumes:\n"
                       "        - name: dshm\n"
                       "          emptyDir:\n"
                       "            medium: Memory\n"
                       "---\n"
                       "apiVersion: v1\n"
                       "kind: Service\n"
                       "metadata:\n"
                       "  name: %s\n"
                       "spec:\n"
                       "  selector:\n"
                       "    app: %s\n"
                       "  ports:\n"
                       "    - port: %d\n"
                       "      targetPort: %d\n",
                       name, name, EMIT_VLLM_PORT, EMIT_VLLM_PORT);
    return gpuplan_buf_status(out, err);
}

enum gpuplan_status
emit_k8s(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    if (plan->job.method != GPUPLAN_METHOD_INFER)
        return k8s_training(plan, out, err);
    return k8s_serving(plan, out, err);
}

/* ---- SkyPilot ---- */

const char *emit_skypilot_accelerator(const char *gpu_id)
{
    /* SkyPilot's accelerator names (`sky show-gpus`). */
    static const struct {
        const char *id, *name;
    } table[] = {
        { "b200", "B200" },
        { "h200-sxm", "H200" },
        { "h100-sxm", "H100" },
        { "a100-80gb-sxm", "A100-80GB" },
        { "a100-40gb-sxm", "A100" },
        { "l40s", "L40S" },
        { "l4", "L4" },
        { "a10g", "A10G" },
        { "t4", "T4" },
        { "v100-32gb", "V100-32GB" },
        { "mi300x", "MI300X" },
    };
    for (size_t i = 0; gpu_id && i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(gpu_id, table[i].id) == 0)
            return table[i].name;
    }
    return NULL;
}

enum gpuplan_status
emit_skypilot(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    const bool infer = plan->job.method == GPUPLAN_METHOD_INFER;
    char name[64];
    k8s_name(infer ? "vllm-" : "ft-", plan->model_id, name, sizeof name);
    const unsigned long long ram_gib =
        (unsigned long long)(plan->server.ram_bytes / GPUPLAN_BYTES_PER_GIB);
    const struct gpuplan_plan_serving *sv = &plan->serving;
    const uint32_t nodes = infer ? (sv->pp ? sv->pp : 1) : plan->nodes;
    const uint32_t gpn = infer ? (sv->gpus_per_replica / nodes ? sv->gpus_per_replica / nodes : 1)
                               : plan->gpus_per_node;
    gpuplan_buf_printf(out,
                       "# %s on %u x %s: sky launch this.yaml%s\n"
                       "name: %s\n"
                       "num_nodes: %u\n"
                       "resources:\n"
                       "  accelerators: %s:%u\n",
                       plan->model_id, emit_n_gpus(plan), emit_gpu_id(plan),
                       infer ? " (one replica: launch one per replica)"
                             : " (workdir: the folder with train.py)",
                       name, nodes, emit_skypilot_accelerator(emit_gpu_id(plan)), gpn);
    if (plan->server.cpu_cores)
        gpuplan_buf_printf(out, "  cpus: %u+\n", plan->server.cpu_cores);
    if (ram_gib)
        gpuplan_buf_printf(out, "  memory: %llu+\n", ram_gib);
    if (infer) {
        gpuplan_buf_printf(out, "  ports: %d\nrun: |\n  ",
                           plan->serving.engine == GPUPLAN_SERVING_SGLANG ? EMIT_SGLANG_PORT
                                                                          : EMIT_VLLM_PORT);
        emit_launch_words(plan, " \\\n    ", out);
        gpuplan_buf_puts(out, "\n");
        return gpuplan_buf_status(out, err);
    }
    gpuplan_buf_printf(out,
                       "workdir: .\n"
                       "run: |\n"
                       "  head=$(echo \"$SKYPILOT_NODE_IPS\" | head -n1)\n"
                       "  OMP_NUM_THREADS=%u torchrun --nnodes=\"$SKYPILOT_NUM_NODES\" "
                       "--nproc-per-node=\"$SKYPILOT_NUM_GPUS_PER_NODE\" \\\n"
                       "    --node-rank=\"$SKYPILOT_NODE_RANK\" --master-addr=\"$head\" "
                       "--master-port=%d \\\n"
                       "    ",
                       emit_threads_per_rank(plan), EMIT_RDZV_PORT);
    emit_train_script(plan, out);
    gpuplan_buf_puts(out, "\n");
    return gpuplan_buf_status(out, err);
}
