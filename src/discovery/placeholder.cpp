namespace gputopo::discovery {}
