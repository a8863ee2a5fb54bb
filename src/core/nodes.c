/* The node layout's arithmetic: see nodes.h. */
#include "core/nodes.h"

int pc_virtual_node(const int *pattern, int len, int w)
{
    int node = 0, start = 0;
    if (len <= 0)
        return 0;
    while (start + pattern[node % len] <= w)
        start += pattern[node % len], node++;
    return node;
}

void pc_nodes_make(pc_nodes_t *l, const int *keys)
{
    l->nnodes = 0;
    for (int n = 0; n <= l->size; n++)
        l->node_first[n] = 0;
    for (int r = 0; r < l->size; r++) {
        int n = -1;
        for (int q = 0; q < r && n < 0; q++)
            if (keys[2 * q] == keys[2 * r] && keys[2 * q + 1] == keys[2 * r + 1])
                n = l->node_of[q];
        l->node_of[r] = n >= 0 ? n : l->nnodes++;
        l->local_of[r] = l->node_first[l->node_of[r]]++; /* count so far */
    }
    /* node_first holds counts; turn them into offsets. */
    int off = 0;
    l->ppn_max = 0;
    for (int n = 0; n < l->nnodes; n++) {
        int cnt = l->node_first[n];
        l->node_first[n] = off;
        off += cnt;
        if (cnt > l->ppn_max)
            l->ppn_max = cnt;
    }
    l->node_first[l->nnodes] = off;
    for (int r = 0; r < l->size; r++)
        l->node_ranks[l->node_first[l->node_of[r]] + l->local_of[r]] = r;
}
