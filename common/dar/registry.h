/* registry.h - the algorithms the tools know (algorithm.h is what one of
 * them is): one row per entry, in --help order, and what the tools ask of
 * them together: an entry by name, the default, which entry a record or a
 * model record belongs to, and the one record another entry's.  It sits on
 * top of common/dar: it includes the entries and the processor, and
 * nothing of common/dar includes it; the processor reads a model record
 * with the entry its caller resolved here (dar_algorithm_of_model). */
#ifndef DAR_REGISTRY_H
#define DAR_REGISTRY_H
#include "algorithm.h"

/* The registry's names as option tables take them (cli.h CLI_CHOICE), in
 * its order; test_algorithm checks them against the registry. */
#define DAR_ALGORITHM_NAMES "max-flow|shortest-paths|matching|vertex-cover|min-cost-flow"

/* The rows, in --help order; the first is the default. */
extern const struct dar_algorithm *const dar_algorithms[];
extern const int dar_algorithm_count;
/* The entry called name, or NULL. */
const struct dar_algorithm *dar_algorithm_find(const char *name);
/* The entry a tool takes when not told (the first row). */
const struct dar_algorithm *dar_algorithm_default(void);
/* "max-flow, shortest-paths, matching" into buf, for messages. */
const char *dar_algorithm_names(char *buf, size_t size);
/* The entry a training record is for: the one whose trace it carries
 * (every trace key, else every solution key: a --no-hints trace, whose
 * reader then names what is missing), else the first whose instance it is;
 * a record that is only another entry's instance dies (exit 65) saying
 * which ff-trace --algorithm it needs. */
const struct dar_algorithm *dar_algorithm_of_record(const struct record *rec);
/* The entry other than alg that rec belongs to, or NULL: one whose trace
 * (solution keys) rec carries, or whose instance it is when it is not
 * alg's; why gets "carries the trace of NAME" or "is a NAME instance (no
 * 't')" for the tool's one-line error. */
const struct dar_algorithm *dar_algorithm_other_of_record(const struct dar_algorithm *alg, const struct record *rec,
                                                          char *why, size_t size);
/* Dies (exit 65, naming the record and the first key of that trace alg's
 * has not) when rec carries the whole trace of an entry other than alg, unless alg takes such records
 * (takes_other_traces): a model of one algorithm would otherwise read the
 * instance and ignore the trace it was given.  The tools call it before
 * any of alg's ops reads rec. */
void dar_algorithm_refuse_other_trace(const struct dar_algorithm *alg, const struct record *rec);
/* The entry a model record names (key `algorithm`; a record without it
 * predates the registry and is max-flow's, the default); dies (exit 65)
 * naming the key when no entry has that name.  dar_model_read's resolver. */
const struct dar_algorithm *dar_algorithm_of_model(const struct record *rec);
/* The tools' --help section on the registry (cli_spec.more_help): each
 * entry's name, summary, instance and trace keys, variants, predictions and
 * validation score. */
void dar_algorithms_help(void);

#endif
