/* The simulator's settings (settings.c), which every build validates: no
 * SimGrid header here. */
#ifndef PACOLL_SIM_SETTINGS_H
#define PACOLL_SIM_SETTINGS_H

#include "channel/platform.h"

/* The simulator's settings, in pc_sim_settings' order (settings.c): the
 * channel's cfg->platform[] holds their values. */
enum pc_sim_setting {
    PC_SIM_SET_PUT = 0,  /* PACOLL_SIM_PUT: enum pc_sim_put */
    PC_SIM_SET_TESTED,   /* PACOLL_SIM_TESTED */
    PC_SIM_SET_COPY_BW,  /* PACOLL_SIM_COPY_BW */
    PC_SIM_SET_FAIR,     /* PACOLL_SIM_FAIR */
    PC_SIM_SET_SHM_LAT,  /* PACOLL_SIM_SHM_LAT */
    PC_SIM_SET_SHM_BW,   /* PACOLL_SIM_SHM_BW */
    PC_SIM_SET_O,        /* PACOLL_SIM_O */
    PC_SIM_SET_LAND,     /* PACOLL_SIM_LAND */
    PC_SIM_SET_CMA_CALL, /* PACOLL_SIM_CMA_CALL */
    PC_SIM_SET_HOST_DRIVEN, /* PACOLL_SIM_HOST_DRIVEN */
    PC_SIM_NSETTINGS
};
/* PACOLL_SIM_PUT: a zero-copy write is SimGrid's MPI_Put into the dynamic
 * window, or a host-to-host transfer (smpi.c). */
enum pc_sim_put { PC_SIM_PUT_WINDOW = 0, PC_SIM_PUT_TRANSFER = 1 };
#define PC_SIM_COPY_BW_DEFAULT 10e9
#define PC_SIM_SHM_LAT_DEFAULT 0.25e-6
#define PC_SIM_SHM_BW_DEFAULT 6e9

#endif
