/*
 * The channel's mailbox layout (src/channel/transport.h) for P peers: the
 * progress word, one entry per sender and three eager slots per sender
 * never overlap, entries and slots are aligned, the mailbox's size is where
 * the last slot ends; the eager slot's size for P peers (pc_slot_size) fits
 * the per-rank budget; an eager flag names its call.  The program links the
 * library for pc_slot_size but never calls MPI_Init.
 */
#include <stdlib.h>

#include "channel/transport.h"
#include "unit.h"

static int aligned(size_t off, size_t to) { return off % to == 0; }

/* The layout of one mailbox of n senders with slots of `slot` bytes. */
static void check_box(int n, size_t slot)
{
    int before = unit_failed;
    size_t entry = sizeof(pc_entry_t), end_entries = pc_entry_off(0) + (size_t)n * entry;
    /* the progress word comes first, on its own line */
    CHECK(pc_entry_off(0) >= sizeof(uint64_t));
    CHECK_INT(pc_entry_off(0), PC_LINE);
    for (int q = 0; q < n; q++) {
        size_t e = pc_entry_off(q);
        /* back to back, each 8-byte aligned for the atomic flags */
        CHECK_INT(e, PC_LINE + (size_t)q * entry);
        CHECK(aligned(e, sizeof(uint64_t)));
        /* one sender's entry is one cache line of its own, in every build:
         * no two senders' flags share a line */
        CHECK(aligned(e, PC_LINE));
        for (int g = 0; g < PC_GENS; g++) {
            size_t s = pc_slot_off(n, q, g, slot);
            /* slots after every entry, in (sender, generation) order, back to back */
            CHECK(s >= end_entries);
            CHECK_INT(s, end_entries + ((size_t)q * PC_GENS + (size_t)g) * slot);
            CHECK(s + slot <= pc_box_bytes(n, slot));
            if (aligned(slot, PC_LINE))
                CHECK(aligned(s, PC_LINE));
            CHECK(aligned(s, sizeof(uint64_t)) || !aligned(slot, sizeof(uint64_t)));
        }
        if (unit_failed != before)
            break;
    }
    /* the mailbox ends where the last slot does (or the last entry, without slots) */
    size_t last = n > 0 ? pc_slot_off(n, n - 1, PC_GENS - 1, slot) + slot : end_entries;
    CHECK_INT(pc_box_bytes(n, slot), n > 0 ? last : PC_LINE);
    /* a host's mailboxes sit side by side in one segment (shm.c): each must
     * start aligned, so its size keeps the alignment */
    CHECK(aligned(pc_box_bytes(n, slot), sizeof(uint64_t)) || !aligned(slot, sizeof(uint64_t)));
    if (aligned(slot, PC_LINE))
        CHECK(aligned(pc_box_bytes(n, slot), PC_LINE));
    if (unit_failed != before)
        fprintf(stderr, "    (mailbox of %d senders, slots of %zu bytes)\n", n, slot);
}

static void test_entry(void)
{
    /* the fields a sender writes, inside its entry; the flags 8-byte words */
    CHECK(offsetof(pc_entry_t, adv_addr) % 8 == 0 && offsetof(pc_entry_t, adv_seq) % 8 == 0);
    CHECK(offsetof(pc_entry_t, done) % 8 == 0 && offsetof(pc_entry_t, flag) % 8 == 0);
    CHECK(offsetof(pc_entry_t, flag) + PC_GENS * sizeof(uint64_t) <= sizeof(pc_entry_t));
    CHECK(sizeof(pc_entry_t) % 8 == 0);
    CHECK_INT(sizeof(pc_entry_t), PC_LINE); /* one layout, the simulator's too */
}

static void test_boxes(void)
{
    static const size_t slots[] = {0, 64, 128, 4096, 8192, 65536, 60 * 1024, 24, 8};
    for (int n = 0; n <= 1100; n += n < 20 ? 1 : n < 200 ? 17 : 331)
        for (size_t k = 0; k < sizeof slots / sizeof slots[0]; k++)
            check_box(n, slots[k]);
    /* large teams do not wrap: 4096 senders, 64 KB slots is 768 MB of slots */
    CHECK(pc_box_bytes(4096, 65536) > (size_t)4096 * 3 * 65536);
}

/* The eager slot for P peers: the wanted size, cut to the per-rank budget
 * (three slots per peer) and to whole lines. */
static void test_slot_size(void)
{
    pc_chan_cfg_t cfg;
    pc_chan_t *ch = calloc(1, sizeof *ch);
    if (!CHECK(ch != NULL))
        return;
    memset(&cfg, 0, sizeof cfg);
    ch->peers.cfg = &cfg;
    static const size_t budgets[] = {0, 1000, 1 << 20, 24u << 20, (size_t)1 << 32};
    static const size_t wants[] = {0, 100, 4096, 16384, 1 << 20};
    static const int peers[] = {0, 1, 2, 3, 7, 64, 1000, 100000};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++)
        for (size_t e = 0; e < sizeof wants / sizeof wants[0]; e++)
            for (size_t w = 0; w < sizeof wants / sizeof wants[0]; w++)
                for (size_t p = 0; p < sizeof peers / sizeof peers[0]; p++) {
                    cfg.slot_budget = budgets[b], cfg.slot_want = wants[w];
                    int np = peers[p], n = np > 0 ? np : 1;
                    size_t got = pc_slot_size(ch, np, wants[e]);
                    size_t want = wants[e] > wants[w] ? wants[e] : wants[w];
                    size_t per = budgets[b] / ((size_t)PC_GENS * (size_t)n);
                    size_t expect = (want < per ? want : per) / PC_LINE * PC_LINE;
                    if (!CHECK(got == expect))
                        fprintf(stderr, "    budget %zu eager %zu want %zu peers %d: %zu, expected %zu\n",
                                budgets[b], wants[e], wants[w], np, got, expect);
                    CHECK(aligned(got, PC_LINE));
                    CHECK((size_t)PC_GENS * (size_t)n * got <= budgets[b]);
                    CHECK(got <= want);
                }
    free(ch);
}

/* An eager flag: the call's number above the block's length. */
static void test_flags(void)
{
    static const uint64_t seqs[] = {0, 1, 2, 3, 1000, (1ull << 40) - 1};
    static const size_t lens[] = {0, 1, 4096, PC_LEN_UNCHECKED - 1, PC_LEN_UNCHECKED, 1u << 30};
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
        uint64_t seq = seqs[i];
        CHECK(pc_gen_of(seq) >= 0 && pc_gen_of(seq) < PC_GENS);
        CHECK(pc_gen_of(seq) != pc_gen_of(seq + 1) && pc_gen_of(seq) != pc_gen_of(seq + 2));
        CHECK_INT(pc_gen_of(seq), pc_gen_of(seq + PC_GENS));
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            uint64_t f = pc_eager_flag(seq, lens[k]);
            CHECK(pc_flag_of_call(f, seq));
            CHECK(!pc_flag_of_call(f, seq + 1));
            CHECK(seq == 0 || !pc_flag_of_call(f, seq - 1));
            size_t len = (size_t)(f & PC_LEN_UNCHECKED);
            CHECK_INT(len, lens[k] < PC_LEN_UNCHECKED ? lens[k] : PC_LEN_UNCHECKED);
            /* a flag is never 0 after call 0, the value of a cleared mailbox */
            CHECK(seq == 0 || f != 0);
        }
    }
}

int main(void)
{
    test_entry();
    test_boxes();
    test_slot_size();
    test_flags();
    return unit_done("unit_mailbox");
}
