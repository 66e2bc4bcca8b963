namespace gputopo::device::record {}
