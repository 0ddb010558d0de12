/* repair.c - the repair tool's body (repair.h): the entry picked from the
 * name the tool is called by, its options read from the entry's row, the
 * records passed through the row's repair op. */
#include "repair.h"
#include "die.h"
#include "registry.h"
#include "stream.h"
#include <stdlib.h>
#include <string.h>

void repair_cli_init(struct repair_cli *c, const struct dar_algorithm *alg)
{
    if (alg->nrepair_options > DAR_MAX_REPAIR_OPTIONS)
        die(70, "BUG: %s has %d repair options, at most %d", alg->name, alg->nrepair_options, DAR_MAX_REPAIR_OPTIONS);
    memset(c, 0, sizeof *c);
    c->input = "-";
    c->output = "-";
    int k = 0;
    for (; k < alg->nrepair_options; k++) {
        const struct dar_repair_option *r = &alg->repair_options[k];
        c->values[k] = r->value;
        c->options[k] = (struct cli_option){
            .name = r->name, .short_name = r->short_name, .type = r->type, .arg = r->arg, .help = r->help,
            .choices = r->choices, .min = r->min, .max = r->max,
            .dest = r->type == CLI_TYPE_DOUBLE ? (void *)&c->values[k].number : (void *)&c->values[k].text,
        };
    }
    c->options[k++] = (struct cli_option)CLI_INPUT(c->input);
    c->options[k++] = (struct cli_option)CLI_OUTPUT(c->output);
    c->options[k++] = (struct cli_option)CLI_FORCE(c->force);
    c->spec = (struct cli_spec){alg->repair_tool, "[options] < predicted.mp > fixed.mp", alg->repair_summary,
                                alg->repair_example, c->options, NULL};
}

static const struct dar_algorithm *by_tool(const char *name)
{
    for (int i = 0; i < dar_algorithm_count; i++)
        if (dar_algorithms[i]->repair && strcmp(dar_algorithms[i]->repair_tool, name) == 0)
            return dar_algorithms[i];
    return NULL;
}

const struct dar_algorithm *repair_entry(int *argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    const struct dar_algorithm *alg = by_tool(slash ? slash + 1 : argv[0]);
    if (alg || *argc < 2)
        return alg;
    const char *name = NULL;
    int taken = 0;
    if (strcmp(argv[1], "--algorithm") == 0 && *argc > 2)
        name = argv[2], taken = 2;
    else if (strncmp(argv[1], "--algorithm=", 12) == 0)
        name = argv[1] + 12, taken = 1;
    alg = name ? dar_algorithm_find(name) : NULL;
    if (!alg || !alg->repair)
        return NULL;
    memmove(argv + 1, argv + 1 + taken, sizeof *argv * (size_t)(*argc - taken));   /* argv[argc] too */
    *argc -= taken;
    return alg;
}

static void repairs_help(void)
{
    printf("\nrepairs (the registry's entries that have one):\n");
    for (int i = 0; i < dar_algorithm_count; i++)
        if (dar_algorithms[i]->repair)
            printf("  %-12s --algorithm %s\n", dar_algorithms[i]->repair_tool, dar_algorithms[i]->name);
}

void repair_unnamed(int argc, char **argv)
{
    static char choices[256], names[256], example[128];
    static const char *algorithm = NULL;
    size_t lc = 0, ln = 0;
    for (int i = 0; i < dar_algorithm_count; i++)
        if (dar_algorithms[i]->repair) {
            if (!lc)
                snprintf(example, sizeof example, "dar-step --model dual.mp < test.mp | repair --algorithm %s | metrics",
                         dar_algorithms[i]->name);
            lc += (size_t)snprintf(choices + lc, sizeof choices - lc, "%s%s", lc ? "|" : "", dar_algorithms[i]->name);
            ln += (size_t)snprintf(names + ln, sizeof names - ln, "%s%s", ln ? ", " : "", dar_algorithms[i]->repair_tool);
        }
    static struct cli_option options[2];
    options[0] = (struct cli_option)CLI_CHOICE("algorithm", 0, algorithm, "NAME",
                                               "the entry whose predictions to repair (the first argument; its "
                                               "options follow)", choices);
    static struct cli_spec spec = {
        "repair", "--algorithm NAME [NAME's options] < predicted.mp > fixed.mp",
        "Turn a model's predictions into a valid solution by the repair of the\n"
        "algorithm's registry entry.  The tool is installed under each entry's own\n"
        "name, which picks the entry and takes that entry's options (flow-fix\n"
        "--help, ...); called as repair, --algorithm NAME comes first.",
        example,
        options,
        repairs_help,
    };
    cli_parse(&spec, argc, argv);
    cli_usage_error(&spec, "which repair? --algorithm NAME as the first argument, or call it as %s", names);
}

struct repair_call {
    const struct dar_algorithm *alg;
    const union dar_repair_value *values;
};

static void each(struct writer *w, const struct record *rec, void *context)
{
    const struct repair_call *call = context;
    call->alg->repair(w, rec, call->values);
}

void repair_run(FILE *in, const char *in_name, FILE *out, const struct dar_algorithm *alg,
                const union dar_repair_value *values)
{
    struct repair_call call = {alg, values};
    stream_map(in, in_name, out, &(struct stream_map){.each = each, .context = &call});
}
