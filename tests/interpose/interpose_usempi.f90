! Fortran interposition through `use mpi`: an unchanged Fortran 90 program
! (not linked with pacoll) whose collectives must reach pacoll under
! LD_PRELOAD.  The checks are in interpose_body.inc.
program interpose_usempi
  use mpi
  implicit none
  character(len=*), parameter :: test_name = 'interpose-usempi'
  integer :: comm, info
  include 'interpose_body.inc'
end program interpose_usempi
