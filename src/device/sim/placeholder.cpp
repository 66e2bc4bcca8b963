namespace gputopo::device::sim {}
