/* The simulator's settings.  Built in every build: a script may set them
 * for any build, and a malformed value is reported there too (core/config.c
 * reads them into the channel's cfg->platform[]). */
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
/* platform.c reads the next four itself, once per simulated rank */
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

const pc_param_t *const pc_sim_settings[PC_SIM_NSETTINGS + 1] = {
    [PC_SIM_SET_PUT] = &p_put,         [PC_SIM_SET_TESTED] = &p_tested,
    [PC_SIM_SET_COPY_BW] = &p_copy_bw, [PC_SIM_SET_FAIR] = &p_fair,
    [PC_SIM_SET_SHM_LAT] = &p_shm_lat, [PC_SIM_SET_SHM_BW] = &p_shm_bw,
    [PC_SIM_NSETTINGS] = NULL};
