#include "model/run_section.hpp"

namespace gputopo::model {

Json to_json(const Run& run, bool simulated) {
  Json j = Json::object();
  const auto text = [&](const char* key, const std::string& value) {
    if (!value.empty()) j[key] = value;
  };
  text("command", run.command);
  if (run.command_line) j["commandLine"] = *run.command_line;
  text("timestamp", run.timestamp);
  text("host", run.host);
  if (run.device) j["device"] = *run.device;
  if (run.sim) j["sim"] = {{"preset", run.sim->preset}, {"seed", run.sim->seed}};
  if (run.duration_seconds) j["durationSeconds"] = *run.duration_seconds;
  text("status", run.status);
  if (run.phases) {
    j["phases"] = Json::array();
    for (const auto& p : *run.phases)
      j["phases"].push_back({{"name", p.name}, {"seconds", p.seconds}, {"status", p.status}});
  }
  if (run.disturbed) {
    j["disturbed"] = Json::array();
    for (const auto& d : *run.disturbed)
      j["disturbed"].push_back({{"phases", d.phases}, {"why", d.why}, {"reruns", d.reruns}});
  }
  if (run.guard)
    j["guard"] = {{"seconds", run.guard->seconds}, {"checkpoints", run.guard->checkpoints}};
  if (run.replayed) j["replayed"] = true;
  j["simulated"] = simulated;
  return j;
}

Json to_json(const Tool& tool) {
  Json j = Json::object();
  if (!tool.name.empty()) j["name"] = tool.name;
  if (!tool.version.empty()) j["version"] = tool.version;
  if (!tool.git_describe.empty()) j["gitDescribe"] = tool.git_describe;
  return j;
}

}  // namespace gputopo::model
