/* Room for collective allocations: see room.h. */
#include "channel/room.h"

#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "channel/platform.h"

/* Bytes of memory the kernel can still give without swapping: MemAvailable,
 * or free + buffers on kernels without it.  SIZE_MAX when unknown. */
static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kb = 0;
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
    if (f)
        fclose(f);
    if (found)
        return kb > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kb * 1024;
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return SIZE_MAX;
    return pc_room_mul((size_t)si.freeram + (size_t)si.bufferram, si.mem_unit ? si.mem_unit : 1);
}

/* Open MPI's osc/sm backs MPI_Win_allocate_shared with a file in its
 * osc_sm_backing_directory (/dev/shm where writable, else the job's
 * own directory under TMPDIR); MPICH maps files in /dev/shm.  The MCA parameter
 * is read from the environment (mpirun --mca sets it there): asking MPI_T
 * took hundreds of milliseconds per query, as it registers every variable
 * of every component again. */
static const char *backing_dir(void)
{
    const char *d = getenv("OMPI_MCA_osc_sm_backing_directory");
    if (d && *d)
        return d;
    if (access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

int pc_room_here(pc_room_t r, char *why, size_t len)
{
    size_t need = pc_room_add(r.shm, r.mem), mem = mem_available();
    if (need > mem) {
        snprintf(why, len, "%zu bytes of memory needed on this host, %zu available", need, mem);
        return 0;
    }
    /* (Where one process runs every rank, shared windows are its own
     * memory.) */
    const char *d = r.shm && PC_PLATFORM.own_processes ? backing_dir() : NULL;
    struct statvfs vs;
    if (d && statvfs(d, &vs) == 0) {
        size_t avail = pc_room_mul((size_t)vs.f_bavail, vs.f_frsize ? vs.f_frsize : vs.f_bsize);
        if (r.shm > avail) {
            snprintf(why, len, "%zu bytes of shared memory needed on this host, %zu free in %s",
                     r.shm, avail, d);
            return 0;
        }
    }
    return 1;
}

int pc_room_agree(MPI_Comm comm, int mine, int *all)
{
    *all = 0;
    return PMPI_Allreduce(&mine, all, 1, MPI_INT, MPI_LAND, comm);
}
