! nbody_f: the all-pairs N-body of apps/nbody.c, written in Fortran with
! `use mpi`, so the preload library's Fortran wrappers (MPI_ALLGATHER,
! MPI_GATHER) are exercised by an application (pap-aware and multirail
! papers' N-BODY).  Equal bodies per rank (N must divide by P), a uniform
! random cube, softened gravity, kick-drift-kick leapfrog, positions
! exchanged with MPI_ALLGATHER every step; the per-rank energies come to
! rank 0 with MPI_GATHER.
!
!   nbody_f [N [STEPS]] [--pair A,B]     (defaults 1024 and 10)
!
! --pair A,B (A and B each mpi or pmpi; apps/app.h has the design): the
! steps alternate A B B A ... between two duplicates of MPI_COMM_WORLD, for
! mpi one without hints and for pmpi one whose info hints give every
! collective to the MPI library (pacoll_<coll>=native, given through the
! Fortran MPI_COMM_DUP_WITH_INFO).  Under the preload that is native against
! pacoll in one process.  The result line adds the fields of app.h's:
! pair=A,B a_iter_s= b_iter_s= a_coll_iter_s= b_coll_iter_s= pair_iters=
! pair_ratio= pair_coll_ratio= (medians over the slowest rank's steps).
!
! Verification: total energy kept within 1e-4 (relative) and total
! momentum within 1e-12 of the sum of |m v|.  Prints the suite's result line
! and stops with status 1 when verification fails.
program nbody_f
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer :: ierr, rank, nprocs, n, nl, steps, i, j, s, k
  real(dp), allocatable :: x(:,:), v(:,:), a(:,:), allx(:,:), ke_all(:)
  real(dp) :: dt, eps2, m, e0, e1, p0(3), p1(3), scale, t0, t1, tc, tcoll, tmax, cmax, buf(4)
  character(len=32) :: arg, w(3)
  logical :: ok
  ! --pair: the arms (0 mpi, 1 pmpi) of places A and B, their communicators,
  ! each step's time and time in the allgather
  integer :: pair(0:1), arm_comm(0:1), comm, narg
  logical :: paired
  real(dp), allocatable :: it_t(:), it_c(:)
  character(len=4), parameter :: arm_name(0:1) = (/ 'mpi ', 'pmpi' /)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  n = 1024
  steps = 10
  paired = .false.
  narg = command_argument_count()
  if (narg >= 2) then
    call get_command_argument(narg - 1, arg)
    if (arg == '--pair') then
      call get_command_argument(narg, arg)
      call parse_pair(arg)
      narg = narg - 2
    end if
  end if
  if (narg >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (narg >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) steps
  end if
  if (mod(n, nprocs) /= 0 .or. n < nprocs) then
    if (rank == 0) write (0, '(a)') 'nbody_f: N must be a multiple of the number of ranks'
    call MPI_FINALIZE(ierr)
    stop 2
  end if
  nl = n / nprocs
  dt = 1.0d-3
  eps2 = 0.05d0**2
  m = 1.0d0 / n
  allocate (x(3, nl), v(3, nl), a(3, nl), allx(3, n), ke_all(nprocs), it_t(steps), it_c(steps))
  if (paired) then
    call arm_comms()
    ! each arm's communicator gets its first call (pacoll's set-up) untimed
    do k = 0, 1
      call MPI_BARRIER(arm_comm(k), ierr)
    end do
  end if

  ! every rank draws the same sequence and keeps its own block of bodies
  call init_bodies()
  call MPI_ALLGATHER(x, 3 * nl, MPI_DOUBLE_PRECISION, allx, 3 * nl, MPI_DOUBLE_PRECISION, &
                     MPI_COMM_WORLD, ierr)
  call accel()
  call invariants(e0, p0)
  scale = sum(abs(v)) * m * nprocs

  tcoll = 0
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  t0 = MPI_WTIME()
  do s = 1, steps
    it_t(s) = MPI_WTIME()
    comm = MPI_COMM_WORLD
    if (paired) comm = arm_comm(pair(merge(1, 0, mod(s, 4) >= 2)))  ! A B B A A B B A ...
    v = v + 0.5d0 * dt * a
    x = x + dt * v
    tc = MPI_WTIME()
    call MPI_ALLGATHER(x, 3 * nl, MPI_DOUBLE_PRECISION, allx, 3 * nl, MPI_DOUBLE_PRECISION, &
                       comm, ierr)
    it_c(s) = MPI_WTIME() - tc
    tcoll = tcoll + it_c(s)
    call accel()
    v = v + 0.5d0 * dt * a
    it_t(s) = MPI_WTIME() - it_t(s)
  end do
  t1 = MPI_WTIME() - t0
  call invariants(e1, p1)

  ! every rank's kinetic energy to rank 0, which checks that they add up
  buf(1) = 0.5d0 * m * sum(v * v)
  call MPI_GATHER(buf, 1, MPI_DOUBLE_PRECISION, ke_all, 1, MPI_DOUBLE_PRECISION, 0, &
                  MPI_COMM_WORLD, ierr)
  ok = abs(e1 - e0) < 1.0d-4 * abs(e0) .and. maxval(abs(p1 - p0)) < 1.0d-12 * scale
  call MPI_REDUCE(t1, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(tcoll, cmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (paired) call reduce_steps()
  call kinetic_check()
  if (rank == 0) then
    write (w(1), '(es9.2)') abs(e1 - e0) / abs(e0)
    write (w(2), '(f12.6)') tmax
    write (w(3), '(f12.6)') cmax
    write (*, '(8a,i0,a,i0,a,i0,4a)') 'app=nbody_f mode=fortran', ' dE=', trim(adjustl(w(1))), &
      ' total_s=', trim(adjustl(w(2))), ' coll_s=', trim(adjustl(w(3))), ' ranks=', nprocs, &
      ' n=', n, ' steps=', steps, ' algo=allgather:see-stats', trim(pair_fields()), &
      ' verified=', trim(merge('yes', 'no ', ok))
  end if
  if (paired) then
    do k = 0, 1
      call MPI_COMM_FREE(arm_comm(k), ierr)
    end do
  end if
  call MPI_FINALIZE(ierr)
  if (.not. ok) stop 1

contains

  subroutine parse_pair(v)
    character(len=*), intent(in) :: v
    integer :: c
    c = index(v, ',')
    paired = c > 1
    if (paired) then
      pair(0) = arm_of(v(1:c - 1))
      pair(1) = arm_of(v(c + 1:))
      paired = pair(0) >= 0 .and. pair(1) >= 0
    end if
    if (.not. paired) then
      if (rank == 0) write (0, '(3a)') 'nbody_f: --pair ', trim(v), ': expected A,B, each mpi or pmpi'
      call MPI_FINALIZE(ierr)
      stop 2
    end if
  end subroutine parse_pair

  ! an arm's index in arm_name, or -1
  integer function arm_of(word)
    character(len=*), intent(in) :: word
    do arm_of = 0, 1
      if (word == arm_name(arm_of)) return
    end do
    arm_of = -1
  end function arm_of

  ! --pair: arm 0 a duplicate without hints, arm 1 one hinted to the MPI library
  subroutine arm_comms()
    integer :: info, c
    character(len=9), parameter :: colls(4) = (/ 'alltoall ', 'alltoallv', 'allgather', &
                                                 'gather   ' /)
    do k = 0, 1
      call MPI_INFO_CREATE(info, ierr)
      do c = 1, 4
        if (k == 1) call MPI_INFO_SET(info, 'pacoll_' // trim(colls(c)), 'native', ierr)
      end do
      call MPI_COMM_DUP_WITH_INFO(MPI_COMM_WORLD, info, arm_comm(k), ierr)
      call MPI_INFO_FREE(info, ierr)
    end do
  end subroutine arm_comms

  ! --pair: the result line's fields, after reduce_steps ('' without --pair)
  function pair_fields() result(f)
    character(len=320) :: f
    real(dp) :: ta(steps), tb(steps), ca(steps), cb(steps), r(steps), rc(steps), med(6)
    integer :: na, nb, np_, st
    f = ''
    if (.not. paired) return
    na = 0
    nb = 0
    do st = 1, steps  ! the slowest rank's steps (reduce_steps)
      if (mod(st, 4) < 2) then  ! place A
        na = na + 1
        ta(na) = it_t(st)
        ca(na) = it_c(st)
      else
        nb = nb + 1
        tb(nb) = it_t(st)
        cb(nb) = it_c(st)
      end if
    end do
    np_ = min(na, nb)
    do st = 1, np_
      r(st) = ta(st) / max(tb(st), tiny(1.0d0))
      rc(st) = ca(st) / max(cb(st), tiny(1.0d0))
    end do
    med = (/ median(ta, np_), median(tb, np_), median(ca, np_), median(cb, np_), &
             median(r, np_), median(rc, np_) /)
    write (f, '(4a,4(a,es12.6),a,i0,2(a,f6.4))') ' pair=', trim(arm_name(pair(0))), ',', &
      trim(arm_name(pair(1))), ' a_iter_s=', med(1), ' b_iter_s=', med(2), &
      ' a_coll_iter_s=', med(3), ' b_coll_iter_s=', med(4), ' pair_iters=', 2 * np_, &
      ' pair_ratio=', med(5), ' pair_coll_ratio=', med(6)
  end function pair_fields

  ! --pair: each step's time, the slowest rank's (MPI_ALLREDUCE: arrays, as
  ! in invariants; MPICH's `use mpi` has no interface that lets one routine
  ! take a scalar here and an array there)
  subroutine reduce_steps()
    real(dp) :: mx(steps)
    call MPI_ALLREDUCE(it_t, mx, steps, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    it_t = mx
    call MPI_ALLREDUCE(it_c, mx, steps, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    it_c = mx
  end subroutine reduce_steps

  ! the median of v(1:n) (sorted in place), as app.h's
  real(dp) function median(v, nv)
    real(dp), intent(inout) :: v(:)
    integer, intent(in) :: nv
    integer :: p, q
    real(dp) :: t
    median = 1
    if (nv < 1) return
    do p = 2, nv
      t = v(p)
      q = p - 1
      do while (q >= 1)
        if (v(q) <= t) exit
        v(q + 1) = v(q)
        q = q - 1
      end do
      v(q + 1) = t
    end do
    if (mod(nv, 2) == 1) then
      median = v(nv / 2 + 1)
    else
      median = 0.5d0 * (v(nv / 2) + v(nv / 2 + 1))
    end if
  end function median

  subroutine init_bodies()
    real(dp) :: r(6)
    integer :: b
    call random_seed_fixed()
    do b = 1, n
      call random_number(r)
      k = b - rank * nl
      if (k >= 1 .and. k <= nl) then
        x(:, k) = 2.0d0 * r(1:3) - 1.0d0
        v(:, k) = 0.2d0 * (2.0d0 * r(4:6) - 1.0d0)
      end if
    end do
  end subroutine init_bodies

  subroutine random_seed_fixed()
    integer :: sz
    integer, allocatable :: seed(:)
    call random_seed(size=sz)
    allocate (seed(sz))
    seed = 12345
    call random_seed(put=seed)
  end subroutine random_seed_fixed

  subroutine accel()
    real(dp) :: d(3), r2
    do i = 1, nl
      a(:, i) = 0
      do j = 1, n
        d = allx(:, j) - x(:, i)
        r2 = sum(d * d) + eps2
        a(:, i) = a(:, i) + m * d / (r2 * sqrt(r2))
      end do
    end do
  end subroutine accel

  subroutine invariants(e, p)
    real(dp), intent(out) :: e, p(3)
    real(dp) :: loc(4), tot(4), d(3)
    loc = 0
    do i = 1, nl
      loc(1) = loc(1) + 0.5d0 * m * sum(v(:, i)**2)
      loc(2:4) = loc(2:4) + m * v(:, i)
      do j = 1, n
        if (j == rank * nl + i) cycle
        d = allx(:, j) - x(:, i)
        loc(1) = loc(1) - 0.5d0 * m * m / sqrt(sum(d * d) + eps2)
      end do
    end do
    call MPI_ALLREDUCE(loc, tot, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    e = tot(1)
    p = tot(2:4)
  end subroutine invariants

  ! rank 0: the gathered kinetic energies add up to the reduced one
  subroutine kinetic_check()
    real(dp) :: ke_red, mine
    mine = 0.5d0 * m * sum(v * v)
    call MPI_REDUCE(mine, ke_red, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) ok = ok .and. abs(sum(ke_all) - ke_red) <= 1.0d-12 * abs(ke_red)
    call MPI_BCAST(ok, 1, MPI_LOGICAL, 0, MPI_COMM_WORLD, ierr)
  end subroutine kinetic_check
end program nbody_f
