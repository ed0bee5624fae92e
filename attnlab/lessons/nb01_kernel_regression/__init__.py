"""Notebook 01, kernel regression (核回归): Nadaraya-Watson as attention, a learnable bandwidth, and the
figures and Play panels of the notebook.

data       the toy set: keys, values, queries and the true f
model      the model, leave-one-out keys, the loss against σ, training w
figures    the fit plot, pooling weights, weight maps, the index thumbnail
live       the Play panels: the explorer (part 1) and the training view (part 2)
"""
from .data import kernel_regression_data
from .figures import kernel_regression_plot, pooling_weights, thumbnail, weight_maps
from .live import play, play_trainer
from .model import SIGMAS, NWKernelRegression, leave_one_out, training_loss_curve

__all__ = ["NWKernelRegression", "SIGMAS", "kernel_regression_data", "kernel_regression_plot", "leave_one_out", "play", "play_trainer",
           "pooling_weights", "thumbnail", "training_loss_curve", "weight_maps"]
