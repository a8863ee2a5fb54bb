/*
 * Registration cache for zero-copy receive buffers.
 *
 * The papers register the user's buffer with the NIC and advertise its
 * address; here "registering" is MPI_Win_attach to the team's dynamic
 * window, which a real MPI turns into a NIC registration.  Attach costs a
 * system call and, on InfiniBand, a page pinning: applications reuse their
 * buffers, so attached ranges are kept and a later call whose buffer lies
 * inside one skips the attach (rdma-allgather §4.1, "one registration per
 * call").  Overlapping attachments are not allowed, so a new range that
 * overlaps old ones replaces them.  At most PC_REGCACHE_MAX ranges stay
 * attached, the least recently used one is detached first.  SMPI 3.32's
 * dynamic windows remember only the size of the last attached region and
 * check every put against it, so there the cache holds one region
 * (PC_PLATFORM_REGCACHE_MAX, channel/platform.h).
 *
 * PACOLL_REGCACHE=0 attaches for one call only (for programs that free and
 * re-map memory under the MPI library's feet).
 */
#include "channel/transport.h"

static void detach(pc_chan_t *ch, int i)
{
    pc_regcache_t *rc = &ch->rc;
    PMPI_Win_detach(ch->dwin, (void *)rc->ent[i].base);
    rc->ent[i] = rc->ent[--rc->n];
}

static int overlaps(const pc_regent_t *e, uintptr_t b, size_t len)
{
    return b < e->base + e->len && e->base < b + len;
}

int pc_regcache_register(pc_chan_t *ch, void *buf, size_t len)
{
    pc_regcache_t *rc = &ch->rc;
    uintptr_t b = (uintptr_t)buf;
    if (len == 0)
        return MPI_SUCCESS;
    if (!ch->peers.cfg->regcache) {
        rc->misses++;
        rc->attached_bytes += len;
        rc->temp_base = buf;
        return PMPI_Win_attach(ch->dwin, buf, (MPI_Aint)len);
    }
    rc->clock++;
    for (int i = 0; i < rc->n; i++) {
        if (b >= rc->ent[i].base && b + len <= rc->ent[i].base + rc->ent[i].len) {
            rc->ent[i].last_use = rc->clock;
            rc->hits++;
            return MPI_SUCCESS;
        }
    }
    for (int i = rc->n - 1; i >= 0; i--)
        if (overlaps(&rc->ent[i], b, len))
            detach(ch, i), rc->evictions++;
    if (rc->n == PC_REGCACHE_MAX) {
        int lru = 0;
        for (int i = 1; i < rc->n; i++)
            if (rc->ent[i].last_use < rc->ent[lru].last_use)
                lru = i;
        detach(ch, lru);
        rc->evictions++;
    }
    int err = PMPI_Win_attach(ch->dwin, buf, (MPI_Aint)len);
    if (err != MPI_SUCCESS)
        return err;
    rc->ent[rc->n++] = (pc_regent_t){.base = b, .len = len, .last_use = rc->clock};
    rc->misses++;
    rc->attached_bytes += len;
    return MPI_SUCCESS;
}

void pc_regcache_end_call(pc_chan_t *ch)
{
    pc_regcache_t *rc = &ch->rc;
    if (rc->temp_base) {
        PMPI_Win_detach(ch->dwin, rc->temp_base);
        rc->temp_base = NULL;
    }
}

void pc_regcache_free(pc_chan_t *ch)
{
    while (ch->rc.n > 0)
        detach(ch, ch->rc.n - 1);
}
