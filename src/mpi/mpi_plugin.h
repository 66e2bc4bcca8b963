/* The C interface of libgputopo_mpi.so, the MPI plugin `gputopo --fleet` loads at run time
   (docs/fleet.md), so that the tool itself starts without Open MPI. Every function returns 0 on
   success or MPI's error code. */
#ifndef GPUTOPO_MPI_PLUGIN_H
#define GPUTOPO_MPI_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MPI_Init; this process's rank and the world's size, and its rank among the ranks of its node. */
int gputopo_mpi_init(int* rank, int* size, int* local_rank);
/* Gathers every rank's `length` bytes at `data` on rank 0: there `*all` (to free with
   gputopo_mpi_free) holds them one after another and `*lengths` (likewise) each rank's length;
   elsewhere both are set to NULL. */
int gputopo_mpi_gather(const char* data, uint64_t length, char** all, uint64_t** lengths);
void gputopo_mpi_free(void* p);
/* MPI_Finalize. */
int gputopo_mpi_finalize(void);

#ifdef __cplusplus
}
#endif

#endif
