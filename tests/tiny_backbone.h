#pragma once
/// A TorchScript backbone for tests, scripted from C++ (no Python needed).
#include <torch/script.h>

#include <string>

namespace fovea::test {

/// Writes a stride-8 convolution with a ReLU, no batch norm: (B, 3, 32, 32) -> (B, 8, 4, 4).
/// Its weights come from the global generator. Returns `path`.
inline std::string write_tiny_backbone(const std::string& path) {
  torch::jit::Module m("TinyBackbone");
  m.register_parameter("weight", torch::randn({8, 3, 8, 8}) * 0.1, false);
  m.define(R"(
    def forward(self, x):
        return torch.relu(torch.conv2d(x, self.weight, None, [8, 8]))
  )");
  m.save(path);
  return path;
}

}  // namespace fovea::test
