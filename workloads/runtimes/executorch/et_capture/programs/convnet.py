"""A small residual convolutional network written here: convolution, batch norm (eval),
ReLU, a residual block, max pooling, a strided convolution, average pooling and a linear head."""

import torch
from torch import nn


class ConvNet(nn.Module):
    def __init__(self, channels, classes=10):
        super().__init__()
        c = channels
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())
        self.a = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(),
                               nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c))
        self.pool = nn.MaxPool2d(2)
        self.down = nn.Sequential(nn.Conv2d(c, 2 * c, 3, stride=2, padding=1), nn.ReLU())
        self.b = nn.Sequential(nn.Conv2d(2 * c, 2 * c, 1), nn.ReLU())
        self.head = nn.Linear(2 * c, classes)

    def forward(self, x):
        x = self.stem(x)
        x = torch.relu(x + self.a(x))
        x = self.down(self.pool(x))
        x = x + self.b(x)
        return self.head(x.mean(dim=(2, 3)))


def convnet(channels=8, size=16, batch=1):
    """residual conv net: conv, batch norm, ReLU, max pool, strided conv, average pool, linear"""
    torch.manual_seed(0)
    m = ConvNet(channels)
    for mod in m.modules():  # batch norm statistics that are not the identity
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 1.5)
    return m, (torch.randn(batch, 3, size, size),)
