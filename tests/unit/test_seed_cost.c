/*
 * test_seed_cost.c - seed claims S5, S8 and S10 computed from first principles.
 *
 * Each test computes the figure with the assumptions stated below, asserts
 * the computed value (hand-checked ranges), and prints whether the seed's
 * statement agrees and why not. Prices are the catalog's figures as of
 * 2026-11 (docs/research/gpus-and-models.md): H100 SXM $30,000 (aiinframap,
 * HF hardware page), $2.95/GPU-hour median over 37 providers (AIMultiple,
 * 2026-05-20); AWS p5.48xlarge $98.32/h for 8 GPUs; HGX H100 platform
 * $60,000 and 4,600 W (data/platforms.json hgx-h100-8).
 */
#include "test_common.h"

#include <math.h>

#include "gpuplan/cost.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
#include "gpuplan/throughput.h"

static struct gpuplan_gpu h100(void)
{
    struct gpuplan_gpu g;
    memset(&g, 0, sizeof g);
    strcpy(g.id, "h100-sxm");
    strcpy(g.architecture, "Hopper");
    strcpy(g.compute_capability, "9.0");
    strcpy(g.form_factor, "sxm");
    g.memory_bandwidth_gb_per_s = 3350;
    g.bf16_tflops = g.fp16_tflops = 989;
    g.has_bf16 = true;
    g.link = GPUPLAN_LINK_NVSWITCH;
    g.link_gb_per_s = 900;
    g.max_gpus_per_link_domain = 8;
    g.pcie_gen = 5;
    g.tdp_w = 700;
    g.price_usd = 30000;
    g.rates[0].tier = GPUPLAN_TIER_SPECIALTY;
    g.rates[0].usd_per_gpu_hour = 2.95;
    g.n_rates = 1;
    return g;
}

static struct gpuplan_platform hgx(void)
{
    struct gpuplan_platform p;
    memset(&p, 0, sizeof p);
    strcpy(p.id, "hgx-h100-8");
    strcpy(p.form_factor, "sxm");
    p.max_gpus = 8;
    p.base_price_usd = 60000;
    p.base_power_w = 4600;
    return p;
}

static void tco_at(double hours, double cloud_rate, struct gpuplan_tco *t)
{
    const struct gpuplan_gpu g = h100();
    const struct gpuplan_platform p = hgx();
    struct gpuplan_cost_inputs in;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 8, &p, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_cost_inputs_set(&in, GPUPLAN_COST_HOURS_PER_DAY, hours, &err),
                     GPUPLAN_OK);
    assert_int_equal(gpuplan_cost_inputs_set(&in, GPUPLAN_COST_CLOUD_PRICE, cloud_rate, &err),
                     GPUPLAN_OK);
    assert_int_equal(gpuplan_tco_compute(&in, t, &err), GPUPLAN_OK);
}

/*
 * S10: "own server beats cloud above about 5 GPU-hours a day; an 8x H100
 * server breaks even in about 12 months; at 8+ hours a day 12-14 months".
 * Assumptions: the cost.c defaults (PUE 1.4, $0.12/kWh, 10 %/yr maintenance,
 * colocation $100/kW-month, 3-year straight-line depreciation).
 */
static void test_s10_break_even(void **state)
{
    (void)state;
    static struct gpuplan_tco t;
    const double hours[] = { 4, 8, 16, 24 };
    print_message("S10 8x H100, market rate $2.95/GPU-h:\n");
    for (size_t i = 0; i < 4; i++) {
        tco_at(hours[i], 2.95, &t);
        if (t.has_break_even_months)
            print_message(
                "  %4.0f h/day: break-even %.1f months (own $%.0f vs cloud $%.0f a month)\n",
                hours[i], t.break_even_months, t.monthly_own_usd, t.monthly_cloud_usd);
        else
            print_message(
                "  %4.0f h/day: never within 36 months (own $%.0f vs cloud $%.0f a month)\n",
                hours[i], t.monthly_own_usd, t.monthly_cloud_usd);
    }
    /* capex 8 * 30000 + 60000 = 300000 */
    assert_true(fabs(t.capex_usd - 300000) < 1e-6);
    /* at 24 h/day: cloud 8 * 2.95 * 24 * 30.44 = 17,235 $/month; opex ~ 4.9 k: ~24 months */
    tco_at(24, 2.95, &t);
    assert_true(t.has_break_even_months);
    assert_true(t.break_even_months > 20 && t.break_even_months < 30);
    tco_at(8, 2.95, &t);
    assert_false(t.has_break_even_months);
    assert_true(t.has_break_even_hours_per_day);
    assert_true(t.break_even_hours_per_day > 15 && t.break_even_hours_per_day < 20);
    print_message(
        "S10 DISAGREES at the market rate: owning pays off above %.1f h/day over 3 years, "
        "not 5; 12 months needs a hyperscaler rate:\n",
        t.break_even_hours_per_day);
    /* AWS p5.48xlarge on demand: $98.32 / 8 = $12.29 per GPU-hour */
    tco_at(8, 98.32 / 8, &t);
    assert_true(t.has_break_even_months);
    assert_true(t.break_even_months > 12 && t.break_even_months < 18);
    const double months_8h = t.break_even_months;
    tco_at(12, 98.32 / 8, &t);
    print_message("  at $12.29/GPU-h: %.1f months at 8 h/day, %.1f at 12 h/day; break-even use "
                  "%.1f h/day (S10's 12-14 months at 8+ h/day AGREES at this rate)\n",
                  months_8h, t.break_even_months, t.break_even_hours_per_day);
    assert_true(t.break_even_hours_per_day > 3 && t.break_even_hours_per_day < 6);
}

/*
 * S8: "QLoRA moves 70B fine-tuning from a cluster to one GPU: server cost
 * 3-4x lower". Full fine-tuning of 70B needs ~1.1-1.2 TB (S3): 16 H100 in two
 * HGX servers; QLoRA fits one 80 GB GPU. Compared: capex of the cluster vs one
 * HGX server vs a one-GPU machine (GPU + $3,000 workstation platform, the
 * catalog's workstation-1).
 */
static void test_s8_qlora_server_cost(void **state)
{
    (void)state;
    const struct gpuplan_gpu g = h100();
    const struct gpuplan_platform p = hgx();
    struct gpuplan_cost_inputs in;
    static struct gpuplan_tco cluster, server, single;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 16, &p, &err), GPUPLAN_OK);
    assert_int_equal(in.n_servers, 2);
    assert_int_equal(gpuplan_tco_compute(&in, &cluster, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 8, &p, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_tco_compute(&in, &server, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 1, &p, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_cost_inputs_set(&in, GPUPLAN_COST_PLATFORM_PRICE, 3000, &err),
                     GPUPLAN_OK);
    assert_int_equal(gpuplan_tco_compute(&in, &single, &err), GPUPLAN_OK);
    /* 2 * (240000 + 60000) + 16 * 2500 network = 640000; 1 GPU: 33000 */
    assert_true(fabs(cluster.capex_usd - 640000) < 1e-6);
    assert_true(fabs(single.capex_usd - 33000) < 1e-6);
    const double r_single = cluster.capex_usd / single.capex_usd;
    const double r_server = cluster.capex_usd / server.capex_usd;
    print_message("S8: capex 16x H100 cluster $%.0f, one HGX $%.0f, one-GPU box $%.0f: cluster / "
                  "one GPU = %.1fx, cluster / one server = %.1fx. S8's 3-4x is conservative for a "
                  "one-GPU box (AGREES as a lower bound) and too high against one 8-GPU server.\n",
                  cluster.capex_usd, server.capex_usd, single.capex_usd, r_single, r_server);
    assert_true(r_single > 4);
    assert_true(r_server > 2 && r_server < 3);
}

/* A Llama-style 34B inventory (CodeLlama-34B shapes: 48 layers, h 8192, GQA 8, ffn 22016). */
static void build_34b(struct gpuplan_model *m)
{
    gpuplan_model_init(m);
    strcpy(m->id, "codellama-34b-shapes");
    m->has_arch = true;
    m->arch.n_layers = 48;
    m->arch.hidden_size = 8192;
    m->arch.n_heads = 64;
    m->arch.n_kv_heads = 8;
    m->arch.head_dim = 128;
    m->arch.intermediate_size = 22016;
    m->arch.vocab_size = 32000;
    const struct {
        enum gpuplan_role role;
        uint64_t out, in, n;
    } groups[] = {
        { GPUPLAN_ROLE_EMBEDDING, 32000, 8192, 1 }, { GPUPLAN_ROLE_ATTN_Q, 8192, 8192, 48 },
        { GPUPLAN_ROLE_ATTN_K, 1024, 8192, 48 },    { GPUPLAN_ROLE_ATTN_V, 1024, 8192, 48 },
        { GPUPLAN_ROLE_ATTN_O, 8192, 8192, 48 },    { GPUPLAN_ROLE_MLP_GATE, 22016, 8192, 48 },
        { GPUPLAN_ROLE_MLP_UP, 22016, 8192, 48 },   { GPUPLAN_ROLE_MLP_DOWN, 8192, 22016, 48 },
        { GPUPLAN_ROLE_LM_HEAD, 32000, 8192, 1 },
    };
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        struct gpuplan_tensor_group g;
        memset(&g, 0, sizeof g);
        g.role = groups[i].role;
        g.layer = -1;
        g.n_dims = 2;
        g.shape[0] = groups[i].out;
        g.shape[1] = groups[i].in;
        g.n_tensors = groups[i].n;
        g.dtype = GPUPLAN_DTYPE_BF16;
        assert_int_equal(gpuplan_model_add(m, &g, &err), GPUPLAN_OK);
    }
    assert_int_equal(gpuplan_model_finalize(m, &err), GPUPLAN_OK);
}

/*
 * S5: "above 30B, multi-GPU without NVLink loses up to 40 % of performance".
 * Computed: full fine-tuning of a 34B model with FSDP on 8 H100 at seq 4096,
 * full checkpointing, with NVSwitch (900 GB/s) vs the same GPUs on PCIe Gen5
 * only (63 GB/s per direction, 80 % bus efficiency).
 */
static void test_s5_pcie_loss(void **state)
{
    (void)state;
    struct gpuplan_model m;
    build_34b(&m);
    struct gpuplan_throughput_profile prof;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_profile_build(&prof, &m, &err), GPUPLAN_OK);
    struct gpuplan_gpu g = h100();
    struct gpuplan_throughput_system sys;
    gpuplan_throughput_system_init(&sys);
    sys.gpu = &g;
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    job.gpus_per_node = 8;
    job.nodes = 1;
    job.seq_len = 4096;
    job.grad_ckpt = GPUPLAN_CKPT_FULL;
    job.sharding = GPUPLAN_SHARDING_FSDP;
    double max_loss = 0, min_loss = 1;
    const enum gpuplan_method methods[] = { GPUPLAN_METHOD_FULL, GPUPLAN_METHOD_LORA };
    const uint64_t seqs[] = { 1024, 2048, 4096 };
    for (size_t k = 0; k < 2; k++) {
        job.method = methods[k];
        for (size_t s = 0; s < 3; s++) {
            double prev = 1;
            job.seq_len = seqs[s];
            for (uint64_t mb = 1; mb <= 4; mb *= 4) {
                job.micro_batch = mb;
                struct gpuplan_throughput nv, pcie;
                g.link = GPUPLAN_LINK_NVSWITCH;
                assert_int_equal(gpuplan_throughput_eval(&prof, &job, &sys, &nv, &err), GPUPLAN_OK);
                g.link = GPUPLAN_LINK_PCIE;
                assert_int_equal(gpuplan_throughput_eval(&prof, &job, &sys, &pcie, &err),
                                 GPUPLAN_OK);
                const double loss = 1.0 - pcie.tokens_per_s_per_gpu / nv.tokens_per_s_per_gpu;
                print_message(
                    "S5: 34B %-4s seq %5llu mb %llu: NVSwitch %5.0f, PCIe %5.0f tok/s/GPU, "
                    "loss %3.0f %% (PCIe bottleneck: %s)\n",
                    gpuplan_method_name(job.method), (unsigned long long)job.seq_len,
                    (unsigned long long)mb, nv.tokens_per_s_per_gpu, pcie.tokens_per_s_per_gpu,
                    100 * loss, gpuplan_bottleneck_name(pcie.bottleneck));
                assert_true(loss <= prev + 1e-12); /* more tokens per micro-batch hide more */
                prev = loss;
                max_loss = fmax(max_loss, loss);
                min_loss = fmin(min_loss, loss);
            }
        }
    }
    /*
     * Hand check, LoRA at seq 1024, micro-batch 1: all-gathers 2 * 7/8 * 34e9 * 2 B
     * = 119 GB at 0.8 * 63 GB/s = 2.4 s per micro-batch against ~0.6 s of compute:
     * PCIe loses ~75 %. At 16k tokens per micro-batch compute hides it (< 5 %).
     */
    assert_true(max_loss > 0.4 && max_loss < 0.9);
    assert_true(min_loss < 0.05);
    print_message("S5: computed loss without NVLink ranges %.0f-%.0f %%: it depends on tokens per "
                  "micro-batch (compute available to hide the FSDP all-gathers). 'Up to 40 %%' "
                  "AGREES for mid-size micro-batches and understates short-sequence LoRA\n",
                  100 * min_loss, 100 * max_loss);
    gpuplan_model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_s10_break_even),
        cmocka_unit_test(test_s8_qlora_server_cost),
        cmocka_unit_test(test_s5_pcie_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
