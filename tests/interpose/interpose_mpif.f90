! Fortran interposition through mpif.h: an unchanged Fortran 77-style program
! (not linked with pacoll) whose collectives must reach pacoll under
! LD_PRELOAD.  The checks are in interpose_body.inc.
program interpose_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: test_name = 'interpose-mpif'
  integer :: comm, info
  include 'interpose_body.inc'
end program interpose_mpif
