#!/usr/bin/env bash
# scripts/carry-cache.sh - a long run's trainings carried from one session to
# the next in a commit, for machines whose files do not outlive a session.
#
#   scripts/carry-cache.sh save DIR   the cache's dar-fit state into DIR
#   scripts/carry-cache.sh load DIR   DIR's state into the cache
#
# The cache (formats/cache.md; DAR_CACHE, else $XDG_CACHE_HOME/dar, else
# ~/.cache/dar) keeps each training's checkpoint beside the entry it will
# become, so the same command resumes it; a new machine has an empty cache.
# `save` copies, for every dar-fit key of the cache's log, its finished entry
# (<k0k1>/<rest>.mp) or else its checkpoint (.ckpt) to DIR/v1/, the same
# layout, and drops DIR's checkpoint of a key whose entry it now has; `load`
# copies DIR's files into the cache, never over a file the cache has and
# never a checkpoint of a key the cache has finished (a finished entry loaded
# removes the cache's checkpoint of it).  Give a long run a
# cache of its own (DAR_CACHE=...): every dar-fit key of its log is carried.
# The key holds the executable's bytes, so the state resumes only under the
# same build (results/tables/README.md: a frozen commit's tools, rebuilt with
# the same compiler and libraries, hash the same).  dar-fit checks what it
# reads: a checkpoint whose trailer does not verify is ignored with a
# warning, an entry that does not is discarded and recomputed.
set -euo pipefail
PROG=carry-cache
die() { echo "$PROG: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: carry-cache.sh save|load DIR"
verb=$1 dir=$2

if [ -n "${DAR_CACHE:-}" ]; then
    [ "$DAR_CACHE" != off ] || die "DAR_CACHE=off: no cache to carry"
    root=$DAR_CACHE
elif [[ "${XDG_CACHE_HOME:-}" == /* ]]; then
    root=$XDG_CACHE_HOME/dar
else
    [ -n "${HOME:-}" ] || die "no DAR_CACHE and no HOME: no cache"
    root=$HOME/.cache/dar
fi

# copy SRC to DST through a temporary file beside it (the cache's .tmp.*
# name), so an interrupted copy never leaves a part under the final name
put() {
    local tmp
    tmp=$(dirname "$2")/.tmp.carry$$
    mkdir -p "$(dirname "$2")"
    cp "$1" "$tmp" && mv "$tmp" "$2"
}

case $verb in
save)
    [ -f "$root/log" ] || die "'$root/log': no cache log: nothing was run with this cache"
    entries=0 ckpts=0
    while read -r key; do
        [[ $key =~ ^[0-9a-f]{32}$ ]] || die "'$root/log': not a key: '$key'"
        sub=v1/${key:0:2}/${key:2}
        if [ -f "$root/$sub.mp" ]; then
            [ -f "$dir/$sub.mp" ] || put "$root/$sub.mp" "$dir/$sub.mp"
            rm -f "$dir/$sub.ckpt"
            entries=$((entries + 1))
        elif [ -f "$root/$sub.ckpt" ]; then
            put "$root/$sub.ckpt" "$dir/$sub.ckpt"
            ckpts=$((ckpts + 1))
        fi
    done < <(awk '$2 == "dar-fit" { print $3 }' "$root/log" | sort -u)
    # the folder keeps what earlier caches saved there: say its whole count too
    all_entries=$(find "$dir/v1" -name '*.mp' | wc -l) all_ckpts=$(find "$dir/v1" -name '*.ckpt' | wc -l)
    echo "$PROG: saved $entries finished trainings and $ckpts checkpoints from '$root' in '$dir';" \
        "it holds $all_entries and $all_ckpts in all ($(du -sh "$dir" | cut -f1))"
    ;;
load)
    [ -d "$dir/v1" ] || die "'$dir': no v1/ folder: not a carried cache"
    loaded=0 kept=0
    while IFS= read -r -d '' file; do
        sub=${file#"$dir"/}
        [[ $sub =~ ^v1/[0-9a-f]{2}/[0-9a-f]{30}\.(mp|ckpt)$ ]] || die "'$file': not a cache entry or checkpoint"
        base=${sub%.*}
        if [ -e "$root/$sub" ] || { [[ $sub == *.ckpt ]] && [ -e "$root/$base.mp" ]; }; then
            kept=$((kept + 1))
        else
            put "$file" "$root/$sub"
            # a finished entry makes the cache's checkpoint of it stale
            [[ $sub == *.ckpt ]] || rm -f "$root/$base.ckpt"
            loaded=$((loaded + 1))
        fi
    done < <(find "$dir/v1" -type f -print0 | sort -z)
    echo "$PROG: loaded $loaded files from '$dir' into '$root' ($kept the cache had already)"
    ;;
*) die "'$verb': save or load" ;;
esac
