! Fortran's MPI_BOTTOM idiom under the preload library: a struct of the
! absolute addresses (MPI_Get_address) of two arrays, sent and received
! from MPI_BOTTOM, with the struct's fields out of address order (b is
! declared, and placed, before a; the fields are a, then b).  Each of the
! four collectives runs on a duplicate whose info hint names one of
! pacoll's algorithms (then the MPI library's, "native"), and every value
! is checked against what MPI defines.
! Prints "interpose-bottom: OK (N ranks)" on rank 0 when all match.
program interpose_bottom
  use mpi
  implicit none
  integer, parameter :: n = 5, maxp = 16
  ! volatile: MPI reads and writes them through MPI_BOTTOM, unseen by the compiler
  integer, volatile :: b(n * maxp), a(n * maxp), rb(n * maxp), ra(n * maxp)
  integer :: ierr, rank, nprocs, nerr, total, i
  integer :: sall, rall, sone, counts(maxp), displs(maxp)
  character(len=16), parameter :: a2a(3) = [character(len=16) :: 'direct', 'bruck', 'native']
  character(len=16), parameter :: a2av(3) = [character(len=16) :: 'direct', 'sloav', 'native']
  character(len=16), parameter :: ag(3) = [character(len=16) :: 'direct', 'ring_rdma', 'native']
  character(len=16), parameter :: ga(3) = [character(len=16) :: 'direct', 'binomial', 'native']

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nerr = 0
  sall = bottom_type(a, b)   ! element p: a(p*n+1..), b(p*n+1..)
  rall = bottom_type(ra, rb)
  call MPI_Type_contiguous(1, sall, sone, ierr)
  call MPI_Type_commit(sone, ierr)
  counts = 1
  do i = 1, maxp
    displs(i) = i - 1
  end do
  do i = 1, 3
    call fill()
    call MPI_Alltoall(MPI_BOTTOM, 1, sall, MPI_BOTTOM, 1, rall, hinted('pacoll_alltoall', a2a(i)), ierr)
    call expect_blocks(.true., -1, 'alltoall '//trim(a2a(i)))
    call fill()
    call MPI_Alltoallv(MPI_BOTTOM, counts, displs, sall, MPI_BOTTOM, counts, displs, rall, &
                       hinted('pacoll_alltoallv', a2av(i)), ierr)
    call expect_blocks(.true., -1, 'alltoallv '//trim(a2av(i)))
    call fill()
    call MPI_Allgather(MPI_BOTTOM, 1, sone, MPI_BOTTOM, 1, rall, hinted('pacoll_allgather', ag(i)), ierr)
    call expect_blocks(.false., -1, 'allgather '//trim(ag(i)))
    call fill()
    call MPI_Gather(MPI_BOTTOM, 1, sone, MPI_BOTTOM, 1, rall, nprocs - 1, &
                    hinted('pacoll_gather', ga(i)), ierr)
    call expect_blocks(.false., nprocs - 1, 'gather '//trim(ga(i)))
  end do
  call MPI_Allreduce(nerr, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      write (*, '(a,i0,a)') 'interpose-bottom: OK (', nprocs, ' ranks)'
    else
      write (*, '(a,i0,a)') 'interpose-bottom: FAILED: ', total, ' mismatches'
    end if
    flush (6)
  end if
  call MPI_Type_free(sall, ierr)
  call MPI_Type_free(rall, ierr)
  call MPI_Type_free(sone, ierr)
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  integer function bottom_type(x, y)
    integer, intent(in) :: x(*), y(*)
    integer(kind=MPI_ADDRESS_KIND) :: disp(2), lb, ext
    integer :: bl(2), types(2), st, e
    call MPI_Get_address(x, disp(1), e)
    call MPI_Get_address(y, disp(2), e)
    bl = n
    types = MPI_INTEGER
    call MPI_Type_create_struct(2, bl, disp, types, st, e)
    call MPI_Type_get_extent(MPI_INTEGER, lb, ext, e)
    call MPI_Type_create_resized(st, 0_MPI_ADDRESS_KIND, n * ext, bottom_type, e)
    call MPI_Type_free(st, e)
    call MPI_Type_commit(bottom_type, e)
  end function bottom_type

  ! A duplicate of MPI_COMM_WORLD whose hint names the algorithm (freed by
  ! MPI_Finalize; a few per run).
  integer function hinted(key, algo)
    character(len=*), intent(in) :: key, algo
    integer :: info, e
    call MPI_Info_create(info, e)
    call MPI_Info_set(info, key, trim(algo), e)
    call MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, hinted, e)
    call MPI_Info_free(info, e)
  end function hinted

  subroutine fill()
    integer :: k
    do k = 1, n * maxp
      a(k) = rank * 100000 + k
      b(k) = -(rank * 100000 + k)
    end do
    ra = 0
    rb = 0
  end subroutine fill

  ! Block p (from rank p) of ra/rb: rank p's block `rank` (per_peer) or its
  ! first block; root >= 0: only there, elsewhere nothing arrives.
  subroutine expect_blocks(per_peer, root, what)
    logical, intent(in) :: per_peer
    integer, intent(in) :: root
    character(len=*), intent(in) :: what
    integer :: p, j, src, bad
    bad = 0
    do p = 0, nprocs - 1
      do j = 1, n
        src = j
        if (per_peer) src = rank * n + j
        if (root >= 0 .and. rank /= root) then
          if (ra(p * n + j) /= 0 .or. rb(p * n + j) /= 0) bad = bad + 1
        else
          if (ra(p * n + j) /= p * 100000 + src) bad = bad + 1
          if (rb(p * n + j) /= -(p * 100000 + src)) bad = bad + 1
        end if
      end do
    end do
    if (bad > 0) then
      write (*, '(a,i0,a,a,a,i0,a)') 'interpose-bottom: rank ', rank, ': ', what, ': ', bad, &
        ' wrong values'
      nerr = nerr + bad
    end if
  end subroutine expect_blocks
end program interpose_bottom
