! Fortran interposition through `use mpi_f08`: an unchanged Fortran 2008
! program (not linked with pacoll) whose collectives must reach pacoll under
! LD_PRELOAD (Open MPI's mpi_alltoall_f08_ and friends).  The checks are in
! interpose_body.inc; only the handle types of `comm` and `info` differ.
program interpose_f08
  use mpi_f08
  implicit none
  character(len=*), parameter :: test_name = 'interpose-f08'
  type(MPI_Comm) :: comm
  type(MPI_Info) :: info
  include 'interpose_body.inc'
end program interpose_f08
