! nbody_f: the all-pairs N-body of apps/nbody.c, written in Fortran with
! `use mpi`, so the preload library's Fortran wrappers (MPI_ALLGATHER,
! MPI_GATHER) are exercised by an application (pap-aware and multirail
! papers' N-BODY).  Equal bodies per rank (N must divide by P), a uniform
! random cube, softened gravity, kick-drift-kick leapfrog, positions
! exchanged with MPI_ALLGATHER every step; the per-rank energies come to
! rank 0 with MPI_GATHER.
!
!   nbody_f [N [STEPS]]        (defaults 1024 and 10)
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

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  n = 1024
  steps = 10
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
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
  allocate (x(3, nl), v(3, nl), a(3, nl), allx(3, n), ke_all(nprocs))

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
    v = v + 0.5d0 * dt * a
    x = x + dt * v
    tc = MPI_WTIME()
    call MPI_ALLGATHER(x, 3 * nl, MPI_DOUBLE_PRECISION, allx, 3 * nl, MPI_DOUBLE_PRECISION, &
                       MPI_COMM_WORLD, ierr)
    tcoll = tcoll + (MPI_WTIME() - tc)
    call accel()
    v = v + 0.5d0 * dt * a
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
  call kinetic_check()
  if (rank == 0) then
    write (w(1), '(es9.2)') abs(e1 - e0) / abs(e0)
    write (w(2), '(f12.6)') tmax
    write (w(3), '(f12.6)') cmax
    write (*, '(8a,i0,a,i0,a,i0,2a)') 'app=nbody_f mode=fortran', ' dE=', trim(adjustl(w(1))), &
      ' total_s=', trim(adjustl(w(2))), ' coll_s=', trim(adjustl(w(3))), ' ranks=', nprocs, &
      ' n=', n, ' steps=', steps, ' algo=allgather:see-stats verified=', trim(merge('yes', 'no ', ok))
  end if
  call MPI_FINALIZE(ierr)
  if (.not. ok) stop 1

contains

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
