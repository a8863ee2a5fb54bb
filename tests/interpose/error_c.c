/*
 * error_c: an erroneous MPI_Alltoall (a negative sendcount) in a plain MPI
 * program, with the default error handler (MPI_ERRORS_ARE_FATAL).  Under the
 * preload library with PACOLL_ALLTOALL=direct pacoll checks the call itself:
 * the job must end, and pacoll's line must name MPI_Alltoall, the call the
 * program made (the MPI library's handler names MPI_Comm_call_errhandler).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sbuf[64] = {0}, rbuf[64];
    MPI_Alltoall(sbuf, rank == 0 ? -1 : 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD);
    printf("error-c: MPI_Alltoall returned on rank %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
