"""Notebook 01, kernel regression (核回归): Nadaraya-Watson as attention, a learnable bandwidth, and the
figures and Play panels of the notebook (the model in ``model``, the drawing in ``figures``)."""
from . import model, figures
from .model import (
    NWKernelRegression, leave_one_out, training_loss, training_loss_curve, TrainingResult, train_steps,
    train_bandwidth, predict)
from .figures import (
    FitLines, fit_lines, kernel_regression_plot, POOLINGS, pooling_weights, weight_maps, Explorer, SIGMAS, TrainingView,
    thumbnail, ROW_LIMITS, row_limit)
