# Sourced by the project's scripts: settings every MPI run here needs.
# Open MPI refuses to run as root (CI and containers run as root) unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's osc/rdma crashes in MPI_Compare_and_swap (SMPI-NOTES): use osc/ucx.
export OMPI_MCA_osc="^rdma"
