namespace gputopo::device::cuda {}
