/*
 * Room for pacoll's collective allocations (docs/CHECKS.md, "Resources").
 *
 * A window or shared segment is allocated collectively: a rank whose part
 * fails (the MPI library's own space check, an exhausted /dev/shm) returns
 * an error while the others stay inside the allocation for good.  So before
 * any such allocation every rank checks what its host can give, and one
 * agreement over the allocating communicator decides for all: either all
 * allocate, or none does and all run something that needs less.
 */
#ifndef PACOLL_ROOM_H
#define PACOLL_ROOM_H

#include "base/internal.h"

/* What one host must hold for an allocation: bytes in the directory the
 * MPI library backs shared windows with (also counted as memory, tmpfs
 * pages are memory), and private bytes. */
typedef struct pc_room {
    size_t shm;
    size_t mem;
} pc_room_t;

/* Whether this host has room for r now; if not, why in words. */
int pc_room_here(pc_room_t r, char *why, size_t len);

/* The agreement: every rank of comm passes whether it has room (mine), and
 * *all is 1 when every rank has.  Collective over comm. */
int pc_room_agree(MPI_Comm comm, int mine, int *all);

/* Saturating sum and product for byte counts. */
static inline size_t pc_room_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static inline size_t pc_room_mul(size_t a, size_t b)
{
    return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

#endif
