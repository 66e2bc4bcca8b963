// libgputopo_mpi.so: the little of MPI that `gputopo --fleet` needs (mpi_plugin.h).
#include "mpi_plugin.h"

#include <mpi.h>

#include <cstdlib>
#include <vector>

extern "C" {

int gputopo_mpi_init(int* rank, int* size, int* local_rank) {
  int rc = MPI_Init(nullptr, nullptr);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm node;
  rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(MPI_COMM_WORLD, size);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node);
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Comm_rank(node, local_rank);
  MPI_Comm_free(&node);
  return rc;
}

int gputopo_mpi_gather(const char* data, uint64_t length, char** all, uint64_t** lengths) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  *all = nullptr;
  *lengths = nullptr;
  const auto n = static_cast<std::size_t>(size);
  auto* each = rank == 0 ? static_cast<uint64_t*>(std::calloc(n, sizeof(uint64_t))) : nullptr;
  int rc = MPI_Gather(&length, 1, MPI_UINT64_T, each, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    std::free(each);
    return rc;
  }
  // MPI_Gatherv counts in int: a report is far below 2 GiB.
  std::vector<int> counts(rank == 0 ? n : 0), displacements(rank == 0 ? n : 0);
  char* buffer = nullptr;
  if (rank == 0) {
    uint64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      counts[i] = static_cast<int>(each[i]);
      displacements[i] = static_cast<int>(total);
      total += each[i];
    }
    buffer = static_cast<char*>(std::malloc(total > 0 ? total : 1));
  }
  rc = MPI_Gatherv(data, static_cast<int>(length), MPI_CHAR, buffer, counts.data(),
                   displacements.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    std::free(buffer);
    std::free(each);
    return rc;
  }
  *all = buffer;
  *lengths = each;
  return MPI_SUCCESS;
}

void gputopo_mpi_free(void* p) { std::free(p); }

int gputopo_mpi_finalize(void) { return MPI_Finalize(); }
}
