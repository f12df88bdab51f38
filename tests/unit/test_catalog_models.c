/*
 * test_catalog_models.c - every model of the embedded catalog builds an
 * inventory, and its parameter count equals an independently verified integer.
 *
 * This is the test that catches a wrong config in data/models.json: one wrong
 * width, layer count or vocabulary size changes the total. Each expected value
 * below was checked against a figure published outside this repository, or,
 * where no exact figure is published, computed from the config and cross-checked
 * as the record's `notes` say. Sources, in the comments:
 *   KH   keras-team/keras-hub presets, metadata "params"
 *   IDX  a checkpoint index metadata.total_size / bytes per parameter
 *   CARD the model card's exact integer
 *   FIX  tests/fixtures/README.md (computed, cross-checked there)
 *   CALC computed from the config; no exact published integer was found
 * The table also fails when a catalog model has no row, so a model added to
 * data/models.json without a verified count does not pass silently.
 */
#include "test_common.h"

#include "gpuplan/catalog.h"
#include "gpuplan/model.h"

struct expected_count {
    const char *id;
    uint64_t n_params_total;
    uint64_t n_params_active; /* 0 = dense (active == total) */
};

static const struct expected_count expected[] = {
    /* existing records: counts from tests/fixtures/README.md */
    { "llama-3.1-8b", 8030261248ULL, 0 },               /* FIX = KH llama3.1_8b */
    { "llama-3.1-70b", 70553706496ULL, 0 },             /* FIX */
    { "llama-3.1-405b", 405853388800ULL, 0 },           /* FIX */
    { "llama-3.2-1b", 1235814400ULL, 0 },               /* FIX, tied head counted once */
    { "llama-3.2-3b", 3212749824ULL, 0 },               /* FIX = IDX 6,425,499,648 / 2 */
    { "llama-3.3-70b", 70553706496ULL, 0 },             /* same shapes as llama-3.1-70b */
    { "mistral-7b-v0.3", 7248023552ULL, 0 },            /* FIX = KH mistral_0.3_7b_en */
    { "mixtral-8x7b", 46702792704ULL, 12879925248ULL }, /* FIX = KH mixtral_8_7b_en */
    { "qwen2.5-3b", 3085938688ULL, 0 },                 /* CALC */
    { "qwen2.5-7b", 7615616512ULL, 0 },                 /* FIX */
    { "qwen2.5-14b", 14770033664ULL, 0 },               /* CALC */
    { "qwen2.5-32b", 32763876352ULL, 0 },               /* CALC */
    { "qwen2.5-72b", 72706203648ULL, 0 },               /* FIX = KH */
    { "qwen3-4b", 4022468096ULL, 0 },                   /* CALC */
    { "qwen3-8b", 8190735360ULL, 0 },                   /* FIX = KH qwen3_8b_en */
    { "qwen3-14b", 14768307200ULL, 0 },                 /* CALC */
    { "qwen3-32b", 32762123264ULL, 0 },                 /* CALC */
    { "qwen3-30b-a3b", 30532122624ULL, 3353032704ULL }, /* FIX = KH */
    { "deepseek-v3", 671026419200ULL, 37552297472ULL }, /* FIX, without the MTP module */
    { "gemma-2-9b", 9241705984ULL, 0 },                 /* FIX = IDX 18,483,411,968 / 2 = KH */
    { "phi-3-mini", 3821079552ULL, 0 },                 /* FIX = KH phi3_mini_4k_instruct_en */
    { "gpt2-large", 774030080ULL, 0 },                  /* FIX = KH gpt2_large_en */
    { "t0p", 11135332352ULL, 0 },                       /* FIX = KH t5_1.1_xxl */
    /* added records */
    { "llama-2-7b", 6738415616ULL, 0 },   /* KH llama2_7b_en; IDX fp32 26,953,670,656 / 4 - 2,048 */
    { "llama-2-13b", 13015864320ULL, 0 }, /* IDX fp32 52,063,467,520 / 4 - 2,560 inv_freq */
    { "llama-2-70b", 68976648192ULL,
      0 },                              /* CALC; matches the brief's index figure (not read here) */
    { "llama-3-8b", 8030261248ULL, 0 }, /* KH llama3_8b_en */
    { "llama-3-70b", 70553706496ULL, 0 },    /* CALC, same shapes as llama-3.1-70b */
    { "mistral-7b-v0.1", 7241732096ULL, 0 }, /* KH mistral_7b_en */
    { "llama-65b", 65285660672ULL, 0 },      /* CALC; LLaMA paper "65.2B" */
    { "granite-7b-base", 6738481152ULL, 0 }, /* CALC: llama-2-7b + 8 vocab rows x 4096 x 2 */
    { "t0-3b", 2849757184ULL, 0 },           /* KH t5_1.1_xl (same shapes) */
    { "mt0-xxl", 12921057280ULL, 0 },        /* computed as T5 (mT5-XXL shapes); HF shows 12.9B */
    { "bloomz-7b1", 7069016064ULL, 0 },      /* CARD bloom-7b1 "7,069,016,064 parameters" */
    { "mpt-7b", 6649286656ULL, 0 },          /* CALC; card "6.7B" */
    { "mixtral-8x22b", 140620634112ULL, 39152031744ULL }, /* CALC; Mistral "141B / 39B active" */
    { "qwen2.5-0.5b", 494032768ULL, 0 },  /* KH qwen2.5_0.5b_en, tied head counted once */
    { "qwen2.5-1.5b", 1543714304ULL, 0 }, /* KH qwen2.5_math_1.5b_en (same shapes) */
    { "qwen3-0.6b", 596049920ULL, 0 },    /* KH qwen3_0.6b_en */
    { "qwen3-1.7b", 1720574976ULL, 0 },   /* KH qwen3_1.7b_en */
    { "qwen3-235b-a22b", 235093634560ULL,
      22190763520ULL }, /* KH qwen3_moe_235b_a22b_en; active computed (top-8) */
    { "deepseek-r1", 671026419200ULL,
      37552297472ULL },                   /* same config as deepseek-v3 (substitution, see notes) */
    { "gemma-2-2b", 2614341888ULL, 0 },   /* KH gemma2_2b_en */
    { "gemma-2-27b", 27227128320ULL, 0 }, /* KH gemma2_27b_en */
    { "gemma-3-1b", 999885952ULL, 0 },    /* KH gemma3_1b */
    { "gemma-3-4b", 3880263168ULL,
      0 }, /* KH gemma3_4b_text 3,880,099,328 + 64 x 2560 (vocab 262208) */
    { "gemma-3-12b", 11766034176ULL, 0 },   /* KH gemma3_12b_text 11,765,788,416 + 64 x 3840 */
    { "gemma-3-27b", 27009346304ULL, 0 },   /* KH gemma3_27b_text 27,009,002,240 + 64 x 5376 */
    { "phi-4", 14659507200ULL, 0 },         /* CALC; Microsoft "14B", HF "14.7B" */
    { "phi-3-medium", 13960238080ULL, 0 },  /* CALC; Microsoft "14B" */
    { "codellama-34b", 33743970304ULL, 0 }, /* CALC with vocab 32000 (litgpt); Meta "34B" */
};

#define N_EXPECTED (sizeof expected / sizeof expected[0])

static struct gpuplan_catalog *load_embedded(void)
{
    struct gpuplan_catalog *c = NULL;
    struct gpuplan_error err;
    memset(&err, 0, sizeof err);
    if (gpuplan_catalog_load(&c, NULL, &err) != GPUPLAN_OK)
        fail_msg("embedded catalog: %s", err.message);
    return c;
}

static const struct expected_count *find_expected(const char *id)
{
    for (size_t i = 0; i < N_EXPECTED; i++) {
        if (strcmp(expected[i].id, id) == 0)
            return &expected[i];
    }
    return NULL;
}

/* Each row: the record exists, the inventory builds, the totals match. */
static void test_counts_match(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < N_EXPECTED; i++) {
        const struct expected_count *e = &expected[i];
        if (!gpuplan_catalog_find_model(c, e->id))
            fail_msg("model '%s' missing from the catalog", e->id);
        struct gpuplan_model m;
        struct gpuplan_error err;
        memset(&err, 0, sizeof err);
        if (gpuplan_model_load(&m, e->id, c, &err) != GPUPLAN_OK)
            fail_msg("model '%s' does not build: %s", e->id, err.message);
        if (m.n_params_total != e->n_params_total)
            fail_msg("model '%s': %llu parameters, expected %llu", e->id,
                     (unsigned long long)m.n_params_total, (unsigned long long)e->n_params_total);
        const uint64_t active = e->n_params_active ? e->n_params_active : e->n_params_total;
        if (m.n_params_active != active)
            fail_msg("model '%s': %llu active parameters, expected %llu", e->id,
                     (unsigned long long)m.n_params_active, (unsigned long long)active);
        gpuplan_model_release(&m);
    }
    gpuplan_catalog_free(c);
}

/* Every catalog model has a verified row, so a new record cannot skip the check. */
static void test_every_model_has_a_row(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < gpuplan_catalog_n_models(c); i++) {
        const struct gpuplan_catalog_model *cm = gpuplan_catalog_model_at(c, i);
        if (!find_expected(cm->id))
            fail_msg("catalog model '%s' has no verified count in this table", cm->id);
    }
    gpuplan_catalog_free(c);
}

/* An official exact figure, when stored, is the inventory's total. */
static void test_published_equals_inventory(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < gpuplan_catalog_n_models(c); i++) {
        const struct gpuplan_catalog_model *cm = gpuplan_catalog_model_at(c, i);
        if (cm->params_published == 0)
            continue;
        const struct expected_count *e = find_expected(cm->id);
        assert_non_null(e);
        if (cm->params_published != e->n_params_total)
            fail_msg("model '%s': params_published %llu, inventory %llu", cm->id,
                     (unsigned long long)cm->params_published,
                     (unsigned long long)e->n_params_total);
    }
    gpuplan_catalog_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_match),
        cmocka_unit_test(test_every_model_has_a_row),
        cmocka_unit_test(test_published_equals_inventory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
