# pipelines/cluster.mk - the study's heavy recipes as Slurm jobs.
#
#   make -j64 RUN=slurm DAR_CACHE=/shared/$USER/dar-cache table1
#
# RUN=slurm (on the command line or in the environment) replaces RUN with
# pipelines/launch, so every `$(call heavy, ...)` recipe of study.mk runs as
#   launch bash -o pipefail -c '<the whole pipeline, redirections included>'
# i.e. one Slurm job (srun) per heavy target, the pipe and its `> $@.tmp` on
# the node; the `$(call publish, ...)` around it renames $@.tmp here, once
# launch has seen the job's own exit status (pipelines/launch).  Everything else (mkdir, cat of
# the tables, gnuplot, $(shell ...)) and the light recipes (`$(call light,
# ...)`: the synthetic splits and the random baseline, a second each even at
# the paper's sizes, less than a job costs) stay local.  A model is trained and
# scored on the test sets in one job.  Empty RUN: all local.
# Any other RUN is used as given, e.g. RUN='pipelines/launch srun -p gpu --'.
#
#   SRUN_OPTS='-p long -t 2:00:00 -c 4'   extra srun options for every job
#   LAUNCH_RETRIES=3                      resubmissions of a job lost to its node
#   LAUNCH_DIR=...                        status files, shared (default $(OUT)/.launch)
#
# The nodes need the work tree and DAR_CACHE at the same absolute paths (a
# shared filesystem), the tools built (bin/) and munge + slurm configured.
# This file is read before study.mk, where `RUN ?=` then keeps our value.
ifeq ($(RUN),slurm)
  override RUN := $(CURDIR)/pipelines/launch
  export LAUNCH_SRUN_OPTS := $(SRUN_OPTS)
  export LAUNCH_DIR ?= $(abspath $(OUT))/.launch
  ifneq ($(filter-out /% off,$(DAR_CACHE)),)
    $(error RUN=slurm: DAR_CACHE must be an absolute path on a filesystem the nodes share, not '$(DAR_CACHE)')
  endif
endif
