/* The simulator's settings.  Built in every build: a script may set them
 * for any build, and a malformed value is reported there too (core/config.c
 * reads them into the channel's cfg->platform[]). */
#include <stdio.h>
#include <string.h>

#include "channel/sim/settings.h"

_Static_assert(PC_SIM_NSETTINGS <= PC_PLATFORM_SETTINGS, "cfg->platform[] holds every setting");

static const char *const put_names[] = {"window", "transfer"}; /* enum pc_sim_put */

static const pc_param_t p_put = {
    .env = "PACOLL_SIM_PUT", .kind = PC_PARAM_CHOICE, .dflt = PC_SIM_PUT_WINDOW,
    .choices = put_names, .nchoices = 2,
    .help = "SMPI only: a zero-copy write is SimGrid's MPI_Put or a host-to-host transfer"};
static const pc_param_t p_tested = {
    .env = "PACOLL_SIM_TESTED", .kind = PC_PARAM_INT, .dflt = 0, .lo = 0, .hi = 1,
    .help = "SMPI only: Direct's receive loops take messages by tested receives, in landing order"};
/* platform.c reads the rest itself, once per simulated rank */
static const pc_param_t p_copy_bw = {
    .env = "PACOLL_SIM_COPY_BW", .kind = PC_PARAM_NUMBER, .dflt = PC_SIM_COPY_BW_DEFAULT,
    .help = "SMPI only: modelled copy bandwidth, bytes/s"};
/* The fair model (sim/run --model fair; docs/SIM.md, "The fair model"). */
static const pc_param_t p_fair = {
    .env = "PACOLL_SIM_FAIR", .kind = PC_PARAM_SIZE, .dflt = 0, .lo = 0, .hi = 0x1p31,
    .help = "SMPI only: 0, or the eager limit below which the platform charges a message's "
            "copies (smpi/os, ois, or): pacoll does not charge such a network eager block's "
            "copy-out again, and its shared-memory eager messages pay the intra-node latency "
            "and bandwidth as the peers' do"};
static const pc_param_t p_shm_lat = {
    .env = "PACOLL_SIM_SHM_LAT", .kind = PC_PARAM_NUMBER, .dflt = PC_SIM_SHM_LAT_DEFAULT,
    .help = "SMPI only, with PACOLL_SIM_FAIR: the intra-node message latency, seconds"};
static const pc_param_t p_shm_bw = {
    .env = "PACOLL_SIM_SHM_BW", .kind = PC_PARAM_NUMBER, .dflt = PC_SIM_SHM_BW_DEFAULT,
    .help = "SMPI only, with PACOLL_SIM_FAIR: the intra-node message bandwidth, bytes/s"};

/* A time in seconds, 0 included (a cost the platform does not have). */
static int parse_seconds(const char *s, double *v, char *what, size_t len)
{
    if (!strcmp(s, "0"))
        return *v = 0, 0;
    if (pc_parse_positive(s, v) == 0)
        return 0;
    snprintf(what, len, "0 or a positive number of seconds (such as 2.5e-7)");
    return -1;
}

/* The fair model's symmetric charges (docs/SIM-MODEL.md, "What the fair
 * model changes"): what the platform charges the peers per message, pacoll
 * pays per hand-off too. */
static const pc_param_t p_o = {
    .env = "PACOLL_SIM_O", .kind = PC_PARAM_CUSTOM, .dflt = 0, .dflt_text = "0",
    .parse = parse_seconds,
    .help = "SMPI only, with PACOLL_SIM_FAIR: the platform's per-message CPU time o, seconds: "
            "a shared-memory message or flag costs its writer o and its reader o when it lands"};
static const pc_param_t p_land = {
    .env = "PACOLL_SIM_LAND", .kind = PC_PARAM_CUSTOM, .dflt = 0, .dflt_text = "0",
    .parse = parse_seconds,
    .help = "SMPI only, with PACOLL_SIM_FAIR: what seeing that a message landed costs the "
            "receiver, seconds, paid on a shared-memory message or flag as the peers pay it "
            "in smpi/or"};
static const pc_param_t p_cma_call = {
    .env = "PACOLL_SIM_CMA_CALL", .kind = PC_PARAM_CUSTOM, .dflt = 0, .dflt_text = "0",
    .parse = parse_seconds,
    .help = "SMPI only, with PACOLL_SIM_FAIR: the system call of a single-copy write to a node "
            "peer (process_vm_writev), seconds, where the write is a copy"};
static const pc_param_t p_host_driven = {
    .env = "PACOLL_SIM_HOST_DRIVEN", .kind = PC_PARAM_INT, .dflt = 0, .lo = 0, .hi = 1,
    .help = "SMPI only, with PACOLL_SIM_FAIR: the NIC is driven by the host CPU (onload), so a "
            "zero-copy write to another host costs its writer o, and its bytes at "
            "PACOLL_SIM_COPY_BW below the eager limit, as a peer's send does"};

const pc_param_t *const pc_sim_settings[PC_SIM_NSETTINGS + 1] = {
    [PC_SIM_SET_PUT] = &p_put,         [PC_SIM_SET_TESTED] = &p_tested,
    [PC_SIM_SET_COPY_BW] = &p_copy_bw, [PC_SIM_SET_FAIR] = &p_fair,
    [PC_SIM_SET_SHM_LAT] = &p_shm_lat, [PC_SIM_SET_SHM_BW] = &p_shm_bw,
    [PC_SIM_SET_O] = &p_o,             [PC_SIM_SET_LAND] = &p_land,
    [PC_SIM_SET_CMA_CALL] = &p_cma_call, [PC_SIM_SET_HOST_DRIVEN] = &p_host_driven,
    [PC_SIM_NSETTINGS] = NULL};
