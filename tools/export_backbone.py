#!/usr/bin/env python3
"""Export a torchvision CNN, cut after its last convolution, as the TorchScript file that
`fovea train --backbone FILE` takes.

Fovea hands the backbone (B, 3, H, W) RGB floats in [0, 1] at the model's --image-size and
expects (B, D, H', W') back: D annotation channels on an H' x W' grid. The exported module
normalises with ImageNet's mean and deviation first, as torchvision's weights expect.

    python3 tools/export_backbone.py vgg16 vgg16-conv5.pt          # 224 px -> 14x14x512 (the paper's)
    python3 tools/export_backbone.py resnet50 resnet50-c4.pt --cut layer3   # 224 px -> 14x14x1024
    python3 tools/export_backbone.py resnet18 resnet18.pt --weights /path/resnet18.pth

Weights: torchvision's default pretrained weights (downloaded by torchvision into its cache on
first use), or a state dict file with --weights; --random for none (for testing the pipeline).
Needs python3-torch and python3-torchvision (Debian) or pip's torch and torchvision.
"""
import argparse
import sys

import torch


class Backbone(torch.nn.Module):
    def __init__(self, features):
        super().__init__()
        self.features = features
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, x):
        return self.features((x - self.mean) / self.std)


def features_of(name, model, cut):
    if name.startswith("vgg"):
        # The paper's encoder: VGG's convolutions up to conv5_4 (conv5_3 for vgg16) and its ReLU,
        # before the last max-pooling: 224 px -> 14 x 14 x 512.
        layers = list(model.features.children())
        return torch.nn.Sequential(*layers[:-1])
    if name.startswith("resnet"):
        order = ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4"]
        if cut not in order:
            sys.exit(f"--cut must be one of {order[4:]} for {name}")
        return torch.nn.Sequential(*[getattr(model, n) for n in order[: order.index(cut) + 1]])
    sys.exit(f"{name}: only vgg* and resnet* are known; cut your own model the same way")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a torchvision model name: vgg16, vgg19, resnet18, resnet50, ...")
    parser.add_argument("out", help="the TorchScript file to write")
    parser.add_argument("--cut", default="layer4", help="resnets: the last stage kept (layer3 gives a 14x14 grid at 224 px)")
    parser.add_argument("--weights", help="a state dict (.pth) to load instead of torchvision's pretrained weights")
    parser.add_argument("--random", action="store_true", help="no pretrained weights (tests the pipeline only)")
    parser.add_argument("--image-size", type=int, default=224, help="the --image-size the model will be trained with")
    args = parser.parse_args()

    import torchvision

    factory = getattr(torchvision.models, args.model, None)
    if factory is None:
        sys.exit(f"torchvision has no model '{args.model}'")
    if args.random or args.weights:
        model = factory()
        if args.weights:
            model.load_state_dict(torch.load(args.weights, map_location="cpu"))
    else:
        try:
            model = factory(weights="DEFAULT")
        except TypeError:  # torchvision before 0.13
            model = factory(pretrained=True)
    backbone = Backbone(features_of(args.model, model, args.cut)).eval()
    probe = torch.rand(1, 3, args.image_size, args.image_size)
    with torch.no_grad():
        grid = backbone(probe)
    scripted = torch.jit.trace(backbone, probe)
    scripted.save(args.out)
    _, d, h, w = grid.shape
    print(f"wrote {args.out}: {args.image_size} px -> {h}x{w}x{d} annotations "
          f"(fovea train --backbone {args.out} --image-size {args.image_size})")


if __name__ == "__main__":
    main()
