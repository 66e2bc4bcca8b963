namespace gputopo::analysis {}
