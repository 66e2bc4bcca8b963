namespace gputopo::report {}
